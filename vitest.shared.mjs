import { defineProject } from 'vitest/config'

/**
 * One vitest project per package. Tests read sibling packages' sources through the
 * `@baton/source` export condition, so nothing has to be built first.
 * @param {string} name
 * @param {import('vitest/config').ViteUserConfig['test']} [overrides]
 */
export function batonProject(name, overrides = {}) {
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
