import { type AgentSwarm, BatonError, type Budget } from '@baton/core'
import type { ConclaveStore } from '../conclave/conclave-types'
import { SwarmMemberCallError } from './swarm-errors'
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
  }) {
    this.conclave = options.conclave
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
    this.emit({ type: 'swarm-message', round: current.round, ...message })
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

  /** Calls one member and returns its text; usage is counted even when the call fails. */
  async call(call: MemberCall, signal: AbortSignal = this.#signal): Promise<string> {
    signal.throwIfAborted()
    const { member } = call
    const budget = this.#budget.child({}, { name: this.#callName(member.agentId) })
    try {
      const context = `${this.#transcript(member.agentId)}${await this.#sharedContext()}`
      const result = await this.#runMember(member, `${call.prompt}${context}`, {
        budget,
        signal: AbortSignal.any([signal, budget.signal]),
        kind: call.kind,
        round: this.round,
        ...(call.structured ? { structured: call.structured } : {}),
        ...(this.#sharesConclave ? { conclave: this.conclave } : {}),
      })
      // A custom runMember may not charge the budget itself; the books must still balance.
      if (budget.spent().calls === 0 && result.usage.calls > 0) {
        budget.charge(result.usage, { wallet: member.agent.wallet })
      }
      return result.text
    } catch (error) {
      if (BatonError.isInstance(error) || signal.aborted || budget.aborted) throw error
      throw new SwarmMemberCallError({
        swarmId: this.swarm.id,
        agentId: member.agentId,
        round: this.round,
        cause: error,
      })
    } finally {
      this.#count(member.agentId, budget.spent())
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
      entry[key] = exact(entry[key] + spend[key])
      this.usage[key] = exact(this.usage[key] + spend[key])
    }
    this.usageByAgent[agentId] = entry
  }
}

// Books are kept to 1e-12 (as core's budgets keep dollars), so sums of prices carry no float
// noise such as 0.00019950000000000002.
function exact(value: number): number {
  return Math.round(value * 1e12) / 1e12
}
