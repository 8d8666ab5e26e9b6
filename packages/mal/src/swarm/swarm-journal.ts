import type { SwarmUsage } from './types'

/** What a swarm journal keeps of one member call that ran to its end. */
export type SwarmJournalEntry = {
  /** The hash of what the member was asked (its agent, kind, structured format and prompt). */
  promptHash: string
  /** The member's answer. */
  text: string
  /** What the call was charged when it ran. */
  usage: SwarmUsage
}

/**
 * Where a swarm run keeps its finished member calls, so that running it again (after its
 * process died, say) answers them from here instead of calling the members again. A call's
 * key is its budget name relative to the run: `r1/lead`, `r1/lead#2` for the leader's second
 * call of round 1.
 */
export interface SwarmJournal {
  /** The call recorded under `key`, if any. */
  recorded(key: string): SwarmJournalEntry | undefined | Promise<SwarmJournalEntry | undefined>
  /**
   * Keeps a call that ran; the run waits for it before it uses the answer, so a call is either
   * recorded or runs again. Replaces an entry whose prompt had changed.
   */
  record(key: string, entry: SwarmJournalEntry): Promise<void>
}

/** A journal in memory, with its entries readable (and seedable) as a Map. */
export type MemorySwarmJournal = SwarmJournal & {
  readonly entries: Map<string, SwarmJournalEntry>
}

/**
 * A swarm journal in memory: run a swarm twice with the same one and the second run makes no
 * member call the first finished.
 *
 * @example
 * const journal = createMemorySwarmJournal()
 * await runSwarm(swarm, 'Plan the launch', { agents, journal, runId: 'launch' })
 * await runSwarm(swarm, 'Plan the launch', { agents, journal, runId: 'launch' }) // replayed
 */
export function createMemorySwarmJournal(
  entries: Iterable<[string, SwarmJournalEntry]> = [],
): MemorySwarmJournal {
  const map = new Map(entries)
  return {
    entries: map,
    recorded: (key) => map.get(key),
    async record(key, entry) {
      map.set(key, entry)
    },
  }
}
