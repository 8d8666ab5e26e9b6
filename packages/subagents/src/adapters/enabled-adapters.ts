import { ownEntry } from '../own-entry'
import { UnknownAdapterError } from './adapter-errors'
import { builtInAdapters } from './built-in-adapters'
import type { AgentAdapter } from './types'

/** Built-in adapters by name (`['codex']`), or adapters by name (`{ codex: codexAdapter }`). */
export type AdaptersOption = readonly string[] | Readonly<Record<string, AgentAdapter>>

/**
 * The external agents a supervisor may start: none unless it opts in, since each one is a
 * program with the run's directory and (some of) its keys. A list names built-in adapters; a
 * record gives adapters by name (built-in ones included, e.g. `{ codex: codexAdapter }`).
 *
 * @example
 * enabledAdapters(['codex']) // { codex: codexAdapter }
 * enabledAdapters(undefined) // {}
 */
export function enabledAdapters(
  option: AdaptersOption | undefined,
): Readonly<Record<string, AgentAdapter>> {
  if (option === undefined) return {}
  if (!isList(option)) return { ...option }
  const enabled: Record<string, AgentAdapter> = {}
  for (const name of option) {
    const adapter = ownEntry(builtInAdapters, name)
    if (!adapter) {
      throw new UnknownAdapterError({ adapter: name, known: Object.keys(builtInAdapters) })
    }
    enabled[name] = adapter
  }
  return enabled
}

function isList(option: AdaptersOption): option is readonly string[] {
  return Array.isArray(option)
}
