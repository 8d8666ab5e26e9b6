import { ownEntry } from '../own-entry'
import { AdapterUnavailableError, UnknownAdapterError } from './adapter-errors'
import { findExecutable } from './find-executable'
import type { AgentAdapter } from './types'

/**
 * The adapter named `name`, checked at `delegate`: it must be known and its command runnable.
 *
 * @example
 * resolveAdapter('codex', builtInAdapters) // throws AGENT_ADAPTER_UNAVAILABLE without codex on PATH
 */
export function resolveAdapter(
  name: string,
  adapters: Readonly<Record<string, AgentAdapter>>,
): AgentAdapter {
  const adapter = ownEntry(adapters, name)
  if (!adapter) throw new UnknownAdapterError({ adapter: name, known: Object.keys(adapters) })
  if (!findExecutable(adapter.command, adapter.env?.PATH ?? process.env.PATH)) {
    throw new AdapterUnavailableError({ adapter: name, command: adapter.command })
  }
  return adapter
}
