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

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  /** Records `escalation`; true when it is new or changes a known one's status. */
  learn(escalation: Escalation): boolean {
    const known = this.#escalations.get(escalation.id)
    // A resolution is final: a late echo of the open escalation must not reopen it.
    if (known && (known.status === escalation.status || known.status !== 'open')) return false
    this.#escalations.set(escalation.id, escalation)
    this.#bound()
    return true
  }

  list(): Escalation[] {
    return [...this.#escalations.values()]
  }

  /** Forgets the resolved escalations of a conversation the bus no longer keeps. */
  forgetResolved(correlationId: string): void {
    for (const [id, escalation] of this.#escalations) {
      if (escalation.correlationId === correlationId && escalation.status !== 'open') {
        this.#escalations.delete(id)
      }
    }
  }

  #bound(): void {
    if (this.#escalations.size <= this.#capacity) return
    for (const [id, escalation] of this.#escalations) {
      if (this.#escalations.size <= this.#capacity) return
      if (escalation.status !== 'open') this.#escalations.delete(id)
    }
    for (const id of this.#escalations.keys()) {
      if (this.#escalations.size <= this.#capacity) return
      this.#escalations.delete(id)
    }
  }
}
