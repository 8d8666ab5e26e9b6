import { type AgentSwarm, BatonError, type Budget, hashJson } from '@baton/core'
import type { ConclaveStore } from '../conclave/conclave-types'
import { roundUsd } from '../round-usd'
import { StepTextCoalescer } from '../run/step-text-coalescer'
import { SwarmJournalWriteError, SwarmMemberCallError } from './swarm-errors'
import type { SwarmJournal, SwarmJournalEntry } from './swarm-journal'
import type {
  ResolvedSwarmMember,
  RunMember,
  StructuredRequest,
  SwarmEvent,
  SwarmMessage,
  SwarmMessageKind,
  SwarmRound,
  SwarmUsage,
} from './types'

export type MemberCall = {
  member: ResolvedSwarmMember
  prompt: string
  kind: SwarmMessageKind
  structured?: StructuredRequest
}

// Distributes over the union, so each event keeps its own fields without `runId`.
type WithoutRunId<E> = E extends SwarmEvent ? Omit<E, 'runId'> : never
type EventPayload = WithoutRunId<SwarmEvent>

const zero = (): SwarmUsage => ({ calls: 0, tokens: 0, costUsd: 0 })

/**
 * The state of one swarm run that strategies work on: rounds, usage, events, and member
 * calls that each run under a child of the run's budget.
 */
export class SwarmSession {
  readonly runId: string
  readonly swarm: AgentSwarm
  /** The strategy running now: the swarm's, or the one an `adaptive` swarm chose. */
  strategy: AgentSwarm['strategy']
  readonly members: ResolvedSwarmMember[]
  readonly task: string
  readonly rounds: SwarmRound[] = []
  readonly usage: SwarmUsage = zero()
  readonly usageByAgent: Record<string, SwarmUsage> = {}
  /** The best answer so far, so a run that stops early still returns something. */
  output = ''
  /** The run's shared state: the collaborative draft, and what `sharedContext` shows members. */
  readonly conclave: { store: ConclaveStore; space: string }
  readonly #budget: Budget
  readonly #signal: AbortSignal
  readonly #runMember: RunMember
  readonly #onEvent: (event: SwarmEvent) => void
  #current: SwarmRound | undefined
  // Writes of `shared-memory` messages to the conclave, awaited before the next member call.
  #sharing: Promise<void> = Promise.resolve()
  // How often each member was called in each round: a member called twice in one round (a
  // leader's plan and synthesis, a proposal and a vote) gets a budget name of its own each time.
  readonly #callNames = new Map<string, number>()
  readonly #journal: SwarmJournal | undefined
  readonly #streams: boolean
  // How each member's latest call of the current round was answered, for its message's event.
  readonly #answered = new Map<string, { round: number; how: 'replayed' | 'diverged' | 'ran' }>()
  readonly #replayed = { calls: 0, usage: zero() }
  readonly #diverged: string[] = []

  constructor(options: {
    runId: string
    swarm: AgentSwarm
    members: ResolvedSwarmMember[]
    task: string
    budget: Budget
    signal: AbortSignal
    runMember: RunMember
    onEvent: (event: SwarmEvent) => void
    conclave: { store: ConclaveStore; space: string }
    journal?: SwarmJournal
    /** Member calls stream their text as `step-delta` events. */
    streams?: boolean
  }) {
    this.#streams = options.streams === true
    this.conclave = options.conclave
    this.#journal = options.journal
    this.runId = options.runId
    this.swarm = options.swarm
    this.strategy = options.swarm.strategy
    this.members = options.members
    this.task = options.task
    this.#budget = options.budget
    this.#signal = options.signal
    this.#runMember = options.runMember
    this.#onEvent = options.onEvent
  }

  /** Members that take part (observers only watch). */
  get active(): ResolvedSwarmMember[] {
    return this.members.filter((member) => member.role !== 'observer')
  }

  get round(): number {
    return this.#current?.round ?? this.rounds.length
  }

  emit(event: EventPayload): void {
    this.#onEvent({ ...event, runId: this.runId } as SwarmEvent)
  }

  startRound(): number {
    const round = this.rounds.length + 1
    this.#current = { round, messages: [] }
    this.rounds.push(this.#current)
    this.emit({ type: 'round-start', round })
    return round
  }

  record(message: SwarmMessage): void {
    const current = this.#current
    if (!current) throw new Error('record() called outside a round')
    current.messages.push(message)
    const answered = this.#answered.get(message.agentId)
    const how =
      message.kind !== 'assignment' && answered?.round === current.round ? answered.how : 'ran'
    this.emit({
      type: 'swarm-message',
      round: current.round,
      ...message,
      ...(how === 'ran' ? {} : { [how]: true as const }),
    })
    if (this.swarm.communication === 'shared-memory') {
      const { store, space } = this.conclave
      const key = `messages/${String(current.round).padStart(3, '0')}/${String(current.messages.length).padStart(3, '0')}`
      const writtenBy = this.members.find((member) => member.agentId === message.agentId)?.agent
        .wallet
      const written = this.#sharing.then(async () => {
        await store.write(space, key, message, { writtenBy: writtenBy ?? message.agentId })
      })
      // A failed write (CONCLAVE_LIMIT, say) fails the next member call, not the process.
      written.catch(() => undefined)
      this.#sharing = written
    }
  }

  finishRound(outcome: Pick<SwarmRound, 'tally' | 'consensusReached'> = {}): void {
    const current = this.#current
    if (!current) return
    Object.assign(current, outcome)
    this.#current = undefined
    this.emit({
      type: 'round-finish',
      round: current.round,
      ...(outcome.consensusReached === undefined
        ? {}
        : { consensusReached: outcome.consensusReached }),
    })
  }

  /**
   * Calls one member and returns its text; usage is counted even when the call fails. With a
   * journal, a call recorded under its key with the same prompt is answered from it (no model
   * call, no charge), and a call that runs is recorded before its text is returned.
   */
  async call(call: MemberCall, signal: AbortSignal = this.#signal): Promise<string> {
    signal.throwIfAborted()
    const { member } = call
    // Named before anything is awaited, so calls started together (callAll) keep their order.
    const name = this.#callName(member.agentId)
    const key = name.slice(this.runId.length + 1)
    let budget: Budget | undefined
    let text: StepTextCoalescer | undefined
    try {
      const prompt = `${call.prompt}${this.#transcript(member.agentId)}${await this.#sharedContext()}`
      const promptHash = hashJson({
        agentId: member.agentId,
        kind: call.kind,
        structured: call.structured?.name ?? null,
        prompt,
      })
      const recorded = await this.#journal?.recorded(key)
      if (recorded?.promptHash === promptHash) return this.#replay(member.agentId, recorded)
      if (recorded) this.#diverged.push(key)
      budget = this.#budget.child({}, { name })
      const round = this.round
      if (this.#streams) {
        const where = { round, path: key, agentId: member.agentId, wallet: member.agent.wallet }
        text = new StepTextCoalescer({
          send: (piece) =>
            this.emit({ type: 'step-delta', ...where, kind: call.kind, text: piece }),
        })
      }
      const stream = text
      const result = await this.#runMember(member, prompt, {
        budget,
        signal: AbortSignal.any([signal, budget.signal]),
        kind: call.kind,
        round,
        ...(call.structured ? { structured: call.structured } : {}),
        ...(this.#sharesConclave ? { conclave: this.conclave } : {}),
        ...(stream ? { onText: (piece: string) => stream.push(piece) } : {}),
      })
      // What is still waiting goes out before the answer is recorded (and its message emitted).
      stream?.finish()
      // A custom runMember may not charge the budget itself; the books must still balance.
      if (budget.spent().calls === 0 && result.usage.calls > 0) {
        budget.charge(result.usage, { wallet: member.agent.wallet })
      }
      const { calls, tokens, costUsd } = budget.spent()
      await this.#record(key, { promptHash, text: result.text, usage: { calls, tokens, costUsd } })
      this.#answered.set(member.agentId, {
        round: this.round,
        how: recorded ? 'diverged' : 'ran',
      })
      return result.text
    } catch (error) {
      if (BatonError.isInstance(error) || signal.aborted || budget?.aborted) throw error
      throw new SwarmMemberCallError({
        swarmId: this.swarm.id,
        agentId: member.agentId,
        round: this.round,
        cause: error,
      })
    } finally {
      text?.finish()
      if (budget) this.#count(member.agentId, budget.spent())
    }
  }

  /** With a journal: what it answered, and the recorded calls that ran again (their prompt changed). */
  get journal(): { replayed: number; replayedUsage: SwarmUsage; diverged: string[] } {
    return {
      replayed: this.#replayed.calls,
      replayedUsage: { ...this.#replayed.usage },
      diverged: [...this.#diverged],
    }
  }

  // A replayed call is counted in the run's usage as it was charged then, and charged nothing now.
  #replay(agentId: string, recorded: SwarmJournalEntry): string {
    this.#count(agentId, recorded.usage)
    this.#replayed.calls += 1
    for (const key of ['calls', 'tokens', 'costUsd'] as const) {
      this.#replayed.usage[key] = roundUsd(this.#replayed.usage[key] + recorded.usage[key])
    }
    this.#answered.set(agentId, { round: this.round, how: 'replayed' })
    return recorded.text
  }

  async #record(key: string, entry: SwarmJournalEntry): Promise<void> {
    if (!this.#journal) return
    try {
      await this.#journal.record(key, entry)
    } catch (cause) {
      // A Baton error (the run was taken over, say) says more than a wrapper would.
      if (BatonError.isInstance(cause)) throw cause
      throw new SwarmJournalWriteError({ swarmId: this.swarm.id, key, cause })
    }
  }

  // Unique among the run's member calls, as budget names must be among siblings.
  #callName(agentId: string): string {
    const name = `${this.runId}/r${this.round}/${agentId}`
    const count = (this.#callNames.get(name) ?? 0) + 1
    this.#callNames.set(name, count)
    return count === 1 ? name : `${name}#${count}`
  }

  /** Resolves once every shared message has been written (or failed). */
  settled(): Promise<void> {
    return this.#sharing.catch(() => undefined)
  }

  // Members of a swarm that shares its state reach the conclave themselves; any other swarm's
  // conclave (a private scratch of its strategy) stays out of their reach.
  get #sharesConclave(): boolean {
    const { sharedContext, communication } = this.swarm
    return (
      sharedContext === true ||
      communication === 'shared-memory' ||
      this.strategy === 'collaborative'
    )
  }

  // With `broadcast`, every member hears everything said so far, not only what the strategy
  // addresses to it (which is all `direct` gives).
  #transcript(agentId: string): string {
    if (this.swarm.communication !== 'broadcast') return ''
    const said = this.rounds
      .flatMap((round) => round.messages.map((message) => ({ round: round.round, message })))
      .filter(({ message }) => message.agentId !== agentId)
      .slice(-30)
    if (said.length === 0) return ''
    const lines = said.map(
      ({ round, message }) =>
        `- round ${round}, ${message.agentId} (${message.kind}): ${message.content.slice(0, 2000)}`,
    )
    return `\n\nWhat the rest of the team has said so far:\n${lines.join('\n')}`
  }

  // With `sharedContext` (or `shared-memory`), every prompt ends with the conclave's entries.
  async #sharedContext(): Promise<string> {
    await this.#sharing
    const { sharedContext, communication } = this.swarm
    if (!sharedContext && communication !== 'shared-memory') return ''
    const { store, space } = this.conclave
    const keys = (await store.list(space)).slice(-50)
    if (keys.length === 0) return ''
    const lines = await Promise.all(
      keys.map(async (key) => {
        const entry = await store.read(space, key)
        const value = JSON.stringify(entry?.value ?? null).slice(0, 2000)
        return `- ${key} (version ${entry?.version}, by ${entry?.writtenBy}): ${value}`
      }),
    )
    return `\n\nThe team's shared conclave:\n${lines.join('\n')}`
  }

  /**
   * Calls several members at once; answers come back in the order of `calls`. The first
   * failure stops the others.
   */
  async callAll(calls: MemberCall[]): Promise<string[]> {
    const controller = new AbortController()
    const signal = AbortSignal.any([this.#signal, controller.signal])
    const settled = await Promise.allSettled(
      calls.map((call) =>
        this.call(call, signal).catch((error: unknown) => {
          if (!controller.signal.aborted) controller.abort(error)
          throw error
        }),
      ),
    )
    if (controller.signal.aborted) throw controller.signal.reason
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<string>).value)
  }

  #count(agentId: string, spend: SwarmUsage): void {
    const entry = this.usageByAgent[agentId] ?? zero()
    for (const key of ['calls', 'tokens', 'costUsd'] as const) {
      entry[key] = roundUsd(entry[key] + spend[key])
      this.usage[key] = roundUsd(this.usage[key] + spend[key])
    }
    this.usageByAgent[agentId] = entry
  }
}
