import { defineProject, type UserWorkspaceConfig, type ViteUserConfig } from 'vitest/config'

/**
 * One vitest project per package. Tests read sibling packages' sources through the
 * `@baton/source` export condition, so nothing has to be built first.
 *
 * @example
 * export default batonProject('core')
 */
export function batonProject(
  name: string,
  overrides: ViteUserConfig['test'] = {},
): UserWorkspaceConfig {
  return defineProject({
    resolve: { conditions: ['@baton/source', 'module', 'node', 'import', 'default'] },
    ssr: { resolve: { conditions: ['@baton/source'], externalConditions: ['@baton/source'] } },
    test: {
      name,
      environment: 'node',
      testTimeout: 30_000,
      hookTimeout: 30_000,
      ...overrides,
    },
  })
}
