import { createBudget } from '@baton/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeTempRoot, STAND_IN_SCRIPT, standInAdapter } from './__fixtures__/helpers'
import { makeAgent } from './__fixtures__/make-agent'
import { createSupervisor } from './create-supervisor'

let root: string
let remove: () => Promise<void>
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(() => remove())

function supervise() {
  const budget = createBudget({ cost: 1 }, { name: 'lead' })
  const supervisor = createSupervisor({
    agent: makeAgent(),
    workspace: { kind: 'directory', root },
    budget,
    adapters: {
      'stand-in': standInAdapter,
      // Says which turn it is and which session it was asked to resume.
      resumer: {
        command: process.execPath,
        args: (task, _directory, context) => [
          STAND_IN_SCRIPT,
          JSON.stringify({
            result: `${task} (turn ${context.turn}, resumed ${context.sessionId ?? 'none'})`,
          }),
        ],
      },
    },
  })
  return { budget, supervisor }
}

describe('createSupervisor with external agents', () => {
  it('runs one in its directory and reports its result, spend and files', async () => {
    const { budget, supervisor } = supervise()
    const id = supervisor.delegate(
      JSON.stringify({ result: 'patched', write: 'patch.diff', totalCostUsd: 0.25 }),
      { agent: 'stand-in', budget: { cost: 0.5 } },
    )
    expect(supervisor.tree()[0]).toMatchObject({ runs: 'adapter:stand-in', status: 'running' })
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report).toMatchObject({ status: 'done', result: 'patched', costUsd: 0.25 })
    expect(report?.files).toEqual(['patch.diff', 'stand-in.pids'])
    expect(budget.spent().costUsd).toBe(0.25)
    // Its session was not kept: one turn only.
    expect(() => supervisor.sendAgent(id, 'more')).toThrow(
      expect.objectContaining({
        code: 'SUBAGENT_UNAVAILABLE',
        message: expect.stringMatching(/multiTurn/),
      }),
    )
  })

  it('relays its question and writes the answer to it', async () => {
    const { supervisor } = supervise()
    const id = supervisor.delegate(JSON.stringify({ question: 'Which branch?' }), {
      agent: 'stand-in',
    })
    const asked = (await supervisor.waitAgents([id]))?.[id]
    expect(asked).toMatchObject({ status: 'asking', question: 'Which branch?' })
    supervisor.sendAgent(id, 'release')
    expect((await supervisor.waitAgents([id]))?.[id]).toMatchObject({
      status: 'done',
      result: 'answer was release',
    })
  })

  it('starts a multi-turn one again for sendAgent, resuming its session', async () => {
    const { supervisor } = supervise()
    const id = supervisor.delegate('first', { agent: 'resumer', multiTurn: true })
    expect((await supervisor.waitAgents([id]))?.[id]?.result).toBe('first (turn 1, resumed none)')
    supervisor.sendAgent(id, 'second')
    expect((await supervisor.waitAgents([id]))?.[id]?.result).toMatch(
      /^second \(turn 2, resumed session-\d+\)$/,
    )
  })

  it('keeps a multi-turn one within its original budget across turns', async () => {
    const { budget, supervisor } = supervise()
    const costly = JSON.stringify({ result: 'turn done', totalCostUsd: 0.2 })
    const id = supervisor.delegate(costly, {
      agent: 'stand-in',
      multiTurn: true,
      budget: { cost: 0.3 },
    })
    expect((await supervisor.waitAgents([id]))?.[id]).toMatchObject({
      status: 'done',
      costUsd: 0.2,
    })
    supervisor.sendAgent(id, costly)
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status).toBe('budget-exhausted')
    expect(report?.costUsd).toBeCloseTo(0.2, 12)
    expect(budget.spent().costUsd).toBeCloseTo(0.2, 12)
  })

  it("works in the caller's directory with share, and hands it back when it exits", async () => {
    const { supervisor } = supervise()
    const id = supervisor.delegate(JSON.stringify({ write: 'from-cli.txt', sleepMs: 200 }), {
      agent: 'stand-in',
      workspace: 'share',
    })
    await expect(supervisor.workspace.writeFile('mine.txt', 'x')).rejects.toMatchObject({
      code: 'WORKSPACE_BUSY',
    })
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report).toMatchObject({ status: 'done', directory: root })
    expect(report?.files).toEqual(['from-cli.txt', 'stand-in.pids'])
    await supervisor.workspace.writeFile('mine.txt', 'x')
  })

  it('reports failed with the reason when it exits non-zero', async () => {
    const { supervisor } = supervise()
    const id = supervisor.delegate(JSON.stringify({ exitCode: 2 }), { agent: 'stand-in' })
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status).toBe('failed')
    expect(report?.error).toMatch(/exited with code 2/)
  })
})
