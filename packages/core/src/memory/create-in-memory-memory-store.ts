import { z } from 'zod'
import { ValidationError } from '../errors/baton-error'
import { issuesOf, parseWith } from '../schemas/parse'
import type { MemoryEntry, MemoryStore } from './types'

export type CreateInMemoryMemoryStoreOptions = {
  /** The oldest entries of a scope are dropped past this many (default 200). */
  maxEntriesPerScope?: number
}

const Entry = z.object({
  role: z.enum(['user', 'assistant', 'note']),
  content: z.string(),
  wallet: z.string().optional(),
  createdAt: z.string().min(1),
})
// Made once: a zod schema built per call (`z.array(Entry)` in `append`) cost ~2.3 µs a call.
const Entries = z.array(Entry)
const Scope = z.string().min(1, 'must not be empty')
const Options = z.object({ maxEntriesPerScope: z.number().int().positive().default(200) })

/**
 * A bounded, process-local MemoryStore: each scope keeps its latest `maxEntriesPerScope` entries.
 *
 * @example
 * const memory = createInMemoryMemoryStore({ maxEntriesPerScope: 50 })
 * await memory.append('analyst', [{ role: 'note', content: 'prefers tables', createdAt: new Date().toISOString() }])
 * await memory.read('analyst', { limit: 10 })
 */
export function createInMemoryMemoryStore(
  options: CreateInMemoryMemoryStoreOptions = {},
): MemoryStore {
  const parsed = Options.safeParse(options)
  if (!parsed.success) throw new ValidationError('memory store options', issuesOf(parsed.error))
  return new InMemoryMemoryStore(parsed.data.maxEntriesPerScope)
}

class InMemoryMemoryStore implements MemoryStore {
  readonly #max: number
  readonly #scopes = new Map<string, MemoryEntry[]>()

  constructor(max: number) {
    this.#max = max
  }

  async read(scope: string, options: { limit?: number } = {}): Promise<MemoryEntry[]> {
    const entries = this.#scopes.get(parseWith(Scope, scope, 'memory scope')) ?? []
    const limit = options.limit ?? entries.length
    if (limit <= 0) return []
    return entries.slice(-limit).map((entry) => ({ ...entry }))
  }

  async append(scope: string, entries: MemoryEntry[]): Promise<void> {
    const key = parseWith(Scope, scope, 'memory scope')
    const valid = parseWith(Entries, entries, 'memory entries')
    const kept = [...(this.#scopes.get(key) ?? []), ...valid.map(clean)]
    this.#scopes.set(key, kept.slice(-this.#max))
  }

  async clear(scope: string): Promise<void> {
    this.#scopes.delete(parseWith(Scope, scope, 'memory scope'))
  }
}

function clean(entry: z.output<typeof Entry>): MemoryEntry {
  const { wallet, ...rest } = entry
  return wallet === undefined ? rest : { ...rest, wallet }
}
