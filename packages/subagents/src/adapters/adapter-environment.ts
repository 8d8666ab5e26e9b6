import type { AgentAdapter } from './types'

/** What every external agent gets of its caller's environment, whatever its adapter says. */
const ALWAYS_PASSED = ['PATH', 'HOME'] as const

/**
 * The environment an external agent runs with: an allowlist, never the caller's whole
 * environment (its tokens and keys). `PATH` and `HOME`, the variables its adapter names in
 * `passEnv`, then the adapter's own `env`.
 *
 * @example
 * adapterEnvironment({ command: 'codex', args: () => [], passEnv: ['OPENAI_API_KEY'] }, process.env)
 * // { PATH: '...', HOME: '...', OPENAI_API_KEY: '...' } and nothing else
 */
export function adapterEnvironment(
  adapter: Pick<AgentAdapter, 'passEnv' | 'env'>,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const environment: Record<string, string> = {}
  for (const name of [...ALWAYS_PASSED, ...(adapter.passEnv ?? [])]) {
    const value = parent[name]
    if (value !== undefined) environment[name] = value
  }
  return { ...environment, ...adapter.env }
}
