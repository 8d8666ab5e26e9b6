import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { createBudget } from '@baton/core'
import { isAlive, waitFor } from '@baton/testing/processes'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SubagentRunner } from '../runner/types'
import { directive, makeTempRoot, standInAdapter } from './__fixtures__/helpers'
import { makeAgent } from './__fixtures__/make-agent'
import { createSupervisor } from './create-supervisor'
import type { SubagentTreeNode, SupervisorEvents } from './types'

let root: string
let remove: () => Promise<void>
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(() => remove())

// An external agent that bills every 50 ms and would run for a minute, with a helper process.
const billingForever = JSON.stringify({ sleepMs: 60_000, usageEveryMs: 50, helper: true })

function flatten(nodes: SubagentTreeNode[]): SubagentTreeNode[] {
  return nodes.flatMap((node) => [node, ...flatten(node.children)])
}

async function pidsIn(directory: string): Promise<number[] | undefined> {
  const text = await readFile(path.join(directory, 'stand-in.pids'), 'utf8').catch(() => '')
  const pids = text.split('\n').filter(Boolean).map(Number)
  return pids.length >= 2 ? pids : undefined
}

// Promise.withResolvers is not in Node 20.
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => {}
  const promise = new Promise<T>((settle) => (resolve = settle))
  return { promise, resolve }
}

describe('createSupervisor cancelAgent', () => {
  it('stops a three-level tree with external processes, and nothing is charged after', async () => {
    const budget = createBudget({ cost: 5 }, { name: 'lead' })
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget,
      adapters: { 'stand-in': standInAdapter },
    })
    const cancels: SupervisorEvents['agent-cancel'][] = []
    supervisor.on('agent-cancel', (event) => cancels.push(event))
    const external = directive('delegate_agent', { task: billingForever, agent: 'stand-in' })
    const middle = `${external}${directive('wait_agents')}`
    const id = supervisor.delegate(
      `${external}${directive('delegate_agent', { task: middle })}${directive('wait_agents')}`,
    )

    // Wait for the whole tree: two external agents (depth 2 and 3), each with a helper.
    const processes = await waitFor(async () => {
      const nodes = flatten(supervisor.tree()).filter((node) => node.runs === 'adapter:stand-in')
      if (nodes.length < 2) return undefined
      const pids = await Promise.all(nodes.map((node) => pidsIn(node.directory)))
      if (pids.some((list) => list === undefined)) return undefined
      return { nodes, pids: pids.flat() as number[] }
    })
    expect(processes.nodes.map((node) => node.depth).sort()).toEqual([2, 3])
    expect(processes.pids).toHaveLength(4)
    expect(processes.pids.every(isAlive)).toBe(true)
    await waitFor(() => (budget.spent().calls > 4 ? true : undefined))

    const report = await supervisor.cancelAgent(id)

    expect(report.status).toBe('cancelled')
    expect(processes.pids.filter(isAlive)).toEqual([])
    const spentAtCancel = budget.spent()
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(budget.spent().calls).toBe(spentAtCancel.calls)
    expect(budget.spent().costUsd).toBe(spentAtCancel.costUsd)
    const statuses = flatten(supervisor.tree()).map((node) => [node.depth, node.status])
    expect(statuses).toHaveLength(4)
    expect(statuses.every(([, status]) => status === 'cancelled')).toBe(true)
    expect(cancels.map((event) => event.depth).sort()).toEqual([1, 2, 2, 3])
  })

  it('records no charge after it returns, even for a model call that was in flight', async () => {
    const budget = createBudget({ calls: 10, cost: 1 }, { name: 'lead' })
    const started = deferred<void>()
    const finished = deferred<unknown>()
    const runner: SubagentRunner = {
      run: async (turn) => {
        // As runAgent does: reserve, call the model, settle what the call really cost.
        const reservation = turn.budget.reserve({ calls: 1, costUsd: 0.5 })
        started.resolve()
        // A call already in flight, from a provider that answers despite the abort: it was
        // paid for, so core records it even on a cancelled budget.
        await new Promise((resolve) => setTimeout(resolve, 1500))
        reservation.settle({ calls: 1, costUsd: 0.25 })
        // Anything after that is refused.
        try {
          turn.budget.charge({ calls: 1, costUsd: 0.25 })
          finished.resolve(undefined)
        } catch (error) {
          finished.resolve(error)
        }
        return { text: 'finished late', messages: [] }
      },
    }
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget,
      runner,
    })
    const id = supervisor.delegate('Slow call')
    await started.promise
    const report = await supervisor.cancelAgent(id)
    const spentAtCancel = budget.spent()
    expect(report).toMatchObject({ status: 'cancelled', modelCalls: 1, costUsd: 0.25 })
    expect(await finished.promise).toMatchObject({ code: 'CANCELLED' })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(budget.spent()).toMatchObject({
      calls: spentAtCancel.calls,
      costUsd: spentAtCancel.costUsd,
    })
    expect((await supervisor.report(id)).status).toBe('cancelled')
  })

  it('kills an external agent whose seconds run out, with timed-out', async () => {
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget: createBudget({ cost: 1 }),
      adapters: { 'stand-in': { ...standInAdapter, killGraceMs: 200 } },
    })
    const id = supervisor.delegate(
      JSON.stringify({ sleepMs: 60_000, helper: true, ignoreTerm: true }),
      {
        agent: 'stand-in',
        budget: { seconds: 3 },
      },
    )
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status).toBe('timed-out')
    const pids = await pidsIn(report!.directory)
    expect(pids?.filter(isAlive)).toEqual([])
  })

  it('records nothing after cancelAgent returns, even from a runner that settles 200 ms late', async () => {
    const budget = createBudget({ calls: 100 }, { name: 'lead' })
    // Each turn reserves a call; on abort it rejects at once but settles the call 200 ms
    // later, as a runner that lets its request go on would.
    const runner: SubagentRunner = {
      run: (turn) =>
        new Promise((resolve, reject) => {
          turn.budget.charge({ calls: 1 })
          const reservation = turn.budget.reserve({ calls: 1 })
          turn.signal.addEventListener('abort', () => {
            reject(turn.signal.reason)
            setTimeout(() => reservation.settle({ calls: 1, costUsd: 0.001 }), 200)
          })
          void resolve
        }),
    }
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget,
      runner,
    })
    const refused: SupervisorEvents['charge-refused'][] = []
    supervisor.on('charge-refused', (event) => refused.push(event))
    const ids = [supervisor.delegate('one'), supervisor.delegate('two')]
    await waitFor(() => (budget.spent().calls === 2 ? true : undefined))
    await Promise.all(ids.map((id) => supervisor.cancelAgent(id)))
    const atCancel = budget.spent()
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(budget.spent()).toMatchObject({ calls: 2, costUsd: atCancel.costUsd })
    expect(atCancel.calls).toBe(2)
    expect(refused.map((event) => [event.id, event.usage.calls])).toEqual([
      [ids[0], 1],
      [ids[1], 1],
    ])
    // The reservations were given back: the budget is whole for what comes next.
    expect(budget.remaining().calls).toBe(98)
  })

  it('records a late call that settles before cancelAgent returns (liveness of the books)', async () => {
    const budget = createBudget({ calls: 100 }, { name: 'lead' })
    const runner: SubagentRunner = {
      run: (turn) =>
        new Promise((_resolve, reject) => {
          const reservation = turn.budget.reserve({ calls: 1 })
          turn.signal.addEventListener('abort', () => {
            setTimeout(() => {
              reservation.settle({ calls: 1 })
              reject(turn.signal.reason)
            }, 50)
          })
        }),
    }
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget,
      runner,
    })
    const id = supervisor.delegate('one')
    await waitFor(() => (budget.remaining().calls === 99 ? true : undefined))
    const report = await supervisor.cancelAgent(id)
    expect(report).toMatchObject({ status: 'cancelled', modelCalls: 1 })
    expect(budget.spent().calls).toBe(1)
  })
})
