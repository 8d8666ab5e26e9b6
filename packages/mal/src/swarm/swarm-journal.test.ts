import { createHash } from 'node:crypto'
import { type AgentSwarmInput, createBudget } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { makeAgent, type ScriptedCall, scriptedRunMember } from './__fixtures__/agents'
import { runSwarm } from './run-swarm'
import { createMemorySwarmJournal, type SwarmJournalEntry } from './swarm-journal'
import type { RunMember, SwarmEvent, SwarmRunResult } from './types'

const agents = ['lead', 'ana', 'ben', 'rex'].map((id) => makeAgent({ id }))
const members = [
  { agentId: 'lead', role: 'leader' as const },
  { agentId: 'ana', role: 'worker' as const, priority: 1 },
  { agentId: 'ben', role: 'worker' as const },
  { agentId: 'rex', role: 'critic' as const },
]
const swarmOf = (strategy: AgentSwarmInput['strategy']): AgentSwarmInput => ({
  id: `team-${strategy}`,
  name: 'Team',
  strategy,
  maxRounds: 2,
  agents: members,
})
const strategies = [
  'hierarchical',
  'democratic',
  'specialist',
  'round-robin',
  'competitive',
  'collaborative',
  'adaptive',
] as const

const digest = (text: string) => createHash('sha1').update(text).digest('hex').slice(0, 8)

// Answers that depend on the prompt, so that an answer taken from the wrong call would show
// in every prompt after it; each strategy gets what it needs to take more than one round.
function teamMember(calls: ScriptedCall[]): RunMember {
  return scriptedRunMember((member, prompt, options) => {
    if (options.structured?.name === 'strategy') {
      return '{"strategy": "democratic", "reason": "every view counts"}'
    }
    if (options.structured?.name === 'vote') return `{"proposal": ${options.round - 1}}`
    if (options.structured?.name === 'judgement') return '{"winner": 1, "reasons": "sharper"}'
    if (options.kind === 'critique') return options.round === 2 ? 'APPROVED' : 'Add the numbers.'
    if (member.agentId === 'lead' && options.kind === 'work' && options.round === 2) return 'DONE'
    return `${member.agentId} ${options.kind} r${options.round} ${digest(prompt)}`
  }, calls)
}

// The same run as a reader sees it, without what says how each answer was obtained.
function comparable(events: SwarmEvent[]): unknown[] {
  return events.map((event) => {
    if (event.type === 'swarm-message') {
      const { replayed: _replayed, diverged: _diverged, ...rest } = event
      return rest
    }
    if (event.type === 'swarm-finish') return { ...event, result: withoutJournal(event.result) }
    return event
  })
}
const withoutJournal = ({ journal: _journal, ...result }: SwarmRunResult) => result

async function run(
  strategy: (typeof strategies)[number],
  journal: ReturnType<typeof createMemorySwarmJournal>,
  calls: ScriptedCall[] = [],
) {
  const events: SwarmEvent[] = []
  const budget = createBudget({ calls: 100 })
  const result = await runSwarm(swarmOf(strategy), 'Plan the product launch', {
    agents,
    runId: `launch-${strategy}`,
    budget,
    journal,
    runMember: teamMember(calls),
    onEvent: (event) => events.push(event),
  })
  return { result, events, budget, calls }
}

describe('runSwarm with a journal', () => {
  it.each(strategies)(
    '%s: run again with the same journal, makes no member call and gives the same output and events',
    async (strategy) => {
      const journal = createMemorySwarmJournal()
      const first = await run(strategy, journal)
      expect(first.result.status).toBe('done')
      expect(first.calls.length).toBeGreaterThan(strategy === 'specialist' ? 0 : 1)
      expect([...journal.entries.keys()]).toHaveLength(first.calls.length)

      const second = await run(strategy, journal)
      expect(second.calls).toEqual([])
      expect(second.budget.spent()).toMatchObject({ calls: 0, tokens: 0, costUsd: 0 })
      expect(second.result.output).toBe(first.result.output)
      expect(withoutJournal(second.result)).toEqual(withoutJournal(first.result))
      expect(comparable(second.events)).toEqual(comparable(first.events))
      expect(second.result.journal).toEqual({
        replayed: first.calls.length,
        replayedUsage: first.result.usage,
        diverged: [],
      })
      // Every message a member's answer gave says it was replayed; the first run's say nothing.
      const answers = second.events.filter(
        (event) => event.type === 'swarm-message' && event.kind !== 'assignment',
      )
      expect(answers.every((event) => event.type === 'swarm-message' && event.replayed)).toBe(true)
      expect(first.events.some((event) => 'replayed' in event)).toBe(false)
    },
  )

  it.each(strategies)(
    '%s: with the first k calls journaled, makes exactly the remaining calls, for every k',
    async (strategy) => {
      const full = createMemorySwarmJournal()
      const first = await run(strategy, full)
      const recorded = [...full.entries]
      for (let k = 0; k <= recorded.length; k += 1) {
        const journal = createMemorySwarmJournal(recorded.slice(0, k))
        const again = await run(strategy, journal)
        expect(again.calls, `k = ${k}`).toHaveLength(recorded.length - k)
        expect(again.budget.spent().calls).toBe(recorded.length - k)
        expect(withoutJournal(again.result)).toEqual(withoutJournal(first.result))
        expect(again.result.journal?.replayed).toBe(k)
        // The calls it made are recorded now: the journal is whole again.
        expect([...journal.entries.keys()].sort()).toEqual(recorded.map(([key]) => key).sort())
      }
    },
  )

  it('keys each call by round and member, numbering a member called again in one round', async () => {
    const journal = createMemorySwarmJournal()
    await run('hierarchical', journal)
    expect([...journal.entries.keys()]).toEqual([
      'r1/lead',
      'r1/ana',
      'r1/ben',
      'r1/lead#2',
      'r1/rex',
      'r2/lead',
      'r2/ana',
      'r2/ben',
      'r2/lead#2',
      'r2/rex',
    ])
  })

  it('asks a member again when its recorded prompt differs, and says so in the result and the event', async () => {
    const journal = createMemorySwarmJournal()
    const first = await run('round-robin', journal)
    const changed = journal.entries.get('r1/ben')!
    journal.entries.set('r1/ben', {
      ...changed,
      promptHash: '0xother',
      text: 'ben wrote this before',
    })
    const again = await run('round-robin', journal)
    expect(again.result.journal?.diverged).toEqual(['r1/ben'])
    // ben is asked again; its answer is the one it gave the first time, so the turns after it
    // are asked what they were asked then, and replay.
    expect(again.calls.map((call) => `r${call.round}/${call.agentId}`)).toEqual(['r1/ben'])
    expect(again.result.output).toBe(first.result.output)
    expect(journal.entries.get('r1/ben')).toEqual(changed)
    const message = again.events.find(
      (event) => event.type === 'swarm-message' && event.agentId === 'ben' && event.round === 1,
    )
    expect(message).toMatchObject({ diverged: true })
    expect(message).not.toHaveProperty('replayed')
  })

  it('charges nothing for a replayed call of a member that reports usage without charging', async () => {
    const journal = createMemorySwarmJournal()
    const uncharged: RunMember = async (member) => ({
      text: `${member.agentId} says hi`,
      usage: { calls: 1, tokens: 7, costUsd: 0.001 },
    })
    const swarm = swarmOf('round-robin')
    const first = createBudget({})
    await runSwarm(swarm, 'Greet', { agents, journal, runMember: uncharged, budget: first })
    expect(first.spent().calls).toBe(8)
    const budget = createBudget({})
    const result = await runSwarm(swarm, 'Greet', { agents, journal, runMember: uncharged, budget })
    expect(budget.spent()).toMatchObject({ calls: 0, tokens: 0, costUsd: 0 })
    const spent = { calls: 8, tokens: 56, costUsd: 0.008 }
    expect(first.spent()).toMatchObject(spent)
    expect(result.usage).toEqual(spent)
    expect(result.journal?.replayedUsage).toEqual(spent)
  })

  it('stops with SWARM_JOURNAL_FAILED when a call cannot be recorded, its spend still counted', async () => {
    const calls: ScriptedCall[] = []
    const journal = {
      recorded: () => undefined,
      record: async (_key: string, _entry: SwarmJournalEntry) => {
        throw new Error('the database is down')
      },
    }
    const result = await runSwarm(swarmOf('round-robin'), 'Greet', {
      agents,
      journal,
      runMember: teamMember(calls),
    })
    expect(result.status).toBe('failed')
    expect(result.error).toMatchObject({ code: 'SWARM_JOURNAL_FAILED' })
    expect(result.error?.message).toContain('r1/lead')
    expect(calls).toHaveLength(1)
    expect(result.usage.calls).toBe(1)
  })

  it('replays a run on the offline model without calling it again', async () => {
    const journal = createMemorySwarmJournal()
    const swarm = { ...swarmOf('round-robin'), maxRounds: 1 }
    const first = await runSwarm(swarm, 'Summarize the incident', { agents, journal })
    const budget = createBudget({ calls: 0 })
    const again = await runSwarm(swarm, 'Summarize the incident', { agents, journal, budget })
    expect(again.status).toBe('done')
    expect(again.output).toBe(first.output)
    expect(again.usage).toEqual(first.usage)
    expect(budget.spent().calls).toBe(0)
  })
})
