import type { Escalation } from '../loop-guard/escalation'

/**
 * The escalations one bus knows, bounded: past `capacity`, the oldest resolved ones go first,
 * then the oldest open ones (their guard has long forgotten them by then), so chains nobody
 * ever resolves cannot grow a long-running server without limit.
 */
export class EscalationBook {
  readonly #capacity: number
  // Map order is the order escalations were first learned.
  readonly #escalations = new Map<string, Escalation>()
  // Escalation ids per correlation, so forgetting a conversation does not scan them all.
  readonly #byCorrelation = new Map<string, Set<string>>()

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
    for (const id of ids) {
      if (this.#escalations.get(id)?.status !== 'open') this.#delete(id)
    }
  }

  #delete(id: string): void {
    const escalation = this.#escalations.get(id)
    this.#escalations.delete(id)
    if (!escalation) return
    const ids = this.#byCorrelation.get(escalation.correlationId)
    ids?.delete(id)
    if (ids?.size === 0) this.#byCorrelation.delete(escalation.correlationId)
  }

  #bound(): void {
    if (this.#escalations.size <= this.#capacity) return
    for (const [id, escalation] of this.#escalations) {
      if (this.#escalations.size <= this.#capacity) return
      if (escalation.status !== 'open') this.#delete(id)
    }
    for (const id of this.#escalations.keys()) {
      if (this.#escalations.size <= this.#capacity) return
      this.#delete(id)
    }
  }
}
