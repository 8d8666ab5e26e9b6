import type { UserWorkspaceConfig, ViteUserConfig } from 'vitest/config'

/** One vitest project per package, resolving siblings through the `@baton/source` condition. */
export function batonProject(name: string, overrides?: ViteUserConfig['test']): UserWorkspaceConfig
