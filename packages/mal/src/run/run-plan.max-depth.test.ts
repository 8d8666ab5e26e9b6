import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createStaticRegistry } from '@baton/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { offlineModels } from '../__fixtures__/offline-models'
import { safeParsePlan } from '../validate'
import { runPlan } from './run-plan'

const registry = createStaticRegistry([agentRecord()])
let workspaceRoot: string
beforeAll(async () => {
  workspaceRoot = await mkdtemp(path.join(tmpdir(), 'mal-depth-'))
})
afterAll(async () => {
  await rm(workspaceRoot, { recursive: true, force: true })
})

const plan = (op: 'task' | 'delegate', maxDepth: number) => ({
  maxDepth,
  steps: [{ op, agentWallet: analystWallet, prompt: 'Assess loan 42', saveAs: 'answer' }],
})

describe('maxDepth', () => {
  it('with 0, refuses any task or delegate with MAX_DEPTH_EXCEEDED before anything is spent', async () => {
    for (const op of ['task', 'delegate'] as const) {
      const result = await runPlan(plan(op, 0), {
        registry,
        models: offlineModels(),
        workspaceRoot,
      })
      expect(result.error).toMatchObject({ code: 'MAX_DEPTH_EXCEEDED', path: 'steps[0]' })
      expect(result.usage.calls).toBe(0)
    }
  })

  it('with 1, lets the agent itself work', async () => {
    for (const op of ['task', 'delegate'] as const) {
      const result = await runPlan(plan(op, 1), {
        registry,
        models: offlineModels(),
        workspaceRoot,
      })
      expect(result.status).toBe('done')
    }
  })

  it('must be a whole number from 0 to 64', () => {
    expect(safeParsePlan(plan('delegate', -1)).success).toBe(false)
    expect(safeParsePlan(plan('delegate', 1.5)).success).toBe(false)
  })
})
