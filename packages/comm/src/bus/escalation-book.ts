import { OldestFirst } from '@baton/core'
import type { Escalation } from '../loop-guard/escalation'

/**
 * The escalations one bus knows, bounded: past `capacity`, the resolved ones go first, oldest
 * resolution first, then the oldest open ones (their guard has long forgotten them by then),
 * so chains nobody ever resolves cannot grow a long-running server without limit. Each
 * escalation learned costs O(1) amortized, at capacity too.
 */
export class EscalationBook {
  readonly #capacity: number
  // Map order is the order escalations were first learned (what `list` gives).
  readonly #escalations = new Map<string, Escalation>()
  // Escalation ids per correlation, so forgetting a conversation does not scan them all.
  readonly #byCorrelation = new Map<string, Set<string>>()
  // The ids by status, each oldest first: what goes first past the capacity.
  readonly #open = new Set<string>()
  readonly #resolved = new Set<string>()
  readonly #oldestResolved = new OldestFirst<string>(this.#evicting(this.#resolved))
  readonly #oldestOpen = new OldestFirst<string>(this.#evicting(this.#open))

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  /** Records `escalation`; true when it is new or changes a known one's status. */
  learn(escalation: Escalation): boolean {
    const known = this.#escalations.get(escalation.id)
    // A resolution is final: a late echo of the open escalation must not reopen it.
    if (known && (known.status === escalation.status || known.status !== 'open')) return false
    this.#escalations.set(escalation.id, escalation)
    let ids = this.#byCorrelation.get(escalation.correlationId)
    if (!ids) {
      ids = new Set()
      this.#byCorrelation.set(escalation.correlationId, ids)
    }
    ids.add(escalation.id)
    if (escalation.status === 'open') {
      this.#open.add(escalation.id)
    } else {
      this.#open.delete(escalation.id)
      this.#resolved.add(escalation.id)
    }
    this.#bound()
    return true
  }

  list(): Escalation[] {
    return [...this.#escalations.values()]
  }

  /** Forgets the resolved escalations of a conversation the bus no longer keeps. */
  forgetResolved(correlationId: string): void {
    const ids = this.#byCorrelation.get(correlationId)
    if (!ids) return
    for (const id of [...ids]) {
      if (this.#resolved.has(id)) this.#delete(id)
    }
  }

  #delete(id: string): void {
    const escalation = this.#escalations.get(id)
    this.#escalations.delete(id)
    this.#open.delete(id)
    this.#resolved.delete(id)
    if (!escalation) return
    const ids = this.#byCorrelation.get(escalation.correlationId)
    ids?.delete(id)
    if (ids?.size === 0) this.#byCorrelation.delete(escalation.correlationId)
  }

  /** One status's ids, as `OldestFirst` trims them: a drop forgets the escalation everywhere. */
  #evicting(ids: Set<string>) {
    return {
      get size() {
        return ids.size
      },
      keys: () => ids.keys(),
      delete: (id: string) => {
        const had = ids.has(id)
        this.#delete(id)
        return had
      },
    }
  }

  #bound(): void {
    if (this.#escalations.size <= this.#capacity) return
    this.#oldestResolved.trimTo(Math.max(0, this.#capacity - this.#open.size))
    this.#oldestOpen.trimTo(this.#capacity - this.#resolved.size)
  }
}
