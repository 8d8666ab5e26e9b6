import { fileURLToPath } from 'node:url'
import { defineProject, type UserWorkspaceConfig, type ViteUserConfig } from 'vitest/config'

const sharedWorkerSetup = fileURLToPath(
  new URL('./packages/testing/src/vitest/shared-worker-setup.ts', import.meta.url),
)

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
      // Generous: CI runs two files at once on two cores, and a test that starts processes or
      // an embedded database can take many times its quiet-machine time there. A test that
      // hangs still fails; one that waits for something bounds its own wait and says what.
      testTimeout: 120_000,
      hookTimeout: 120_000,
      // A project's test files share worker processes: each file imports the packages' sources
      // once per worker, not once per file (the whole suite: 498 s of imports → 87 s, 19.8 →
      // 13.6 min on 2 cores). What a file sets process-wide is put back after it by the setup
      // file; a file that mocks a module imports what it tests after `vi.resetModules()`.
      isolate: false,
      ...overrides,
      setupFiles: [sharedWorkerSetup, ...[overrides.setupFiles ?? []].flat()],
    },
  })
}
