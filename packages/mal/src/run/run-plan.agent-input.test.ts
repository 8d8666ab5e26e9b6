import { AgentCard, createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { agentRecord, analystWallet } from '../__fixtures__/agents'
import { offlineModels } from '../__fixtures__/offline-models'
import { runPlan } from './run-plan'

const registry = createStaticRegistry([
  agentRecord({
    agentCard: {
      inputSchema: {
        type: 'object',
        properties: { orderId: { type: 'integer' } },
        required: ['orderId'],
      },
    },
  }),
])
const delegate = (prompt: string) => ({
  steps: [{ op: 'delegate', agentWallet: analystWallet, prompt, saveAs: 'answer' }],
})

describe('an agent card inputSchema', () => {
  it('refuses a delegation whose message does not match, before anything is spent', async () => {
    const result = await runPlan(delegate('{"orderId": "twelve"}'), {
      registry,
      models: offlineModels(),
    })
    expect(result.error).toMatchObject({ code: 'AGENT_INPUT_INVALID', path: 'steps[0]' })
    expect(result.error?.message).toContain('orderId')
    expect(result.usage.calls).toBe(0)
  })

  it('lets a matching message through', async () => {
    const result = await runPlan(delegate('{"orderId": 1182}'), {
      registry,
      models: offlineModels(),
    })
    expect(result.status).toBe('done')
  })

  it('is refused on the card when it is not a JSON Schema', () => {
    expect(AgentCard.safeParse({ inputSchema: { type: 'nonsense' } }).success).toBe(false)
  })
})

describe('an agent card outputSchema', () => {
  it('asks the agent’s model for structured output, and the delegate or task step saves that JSON', async () => {
    const structured = createStaticRegistry([
      agentRecord({
        agentCard: {
          outputSchema: {
            type: 'object',
            properties: { risk: { type: 'string' } },
            required: ['risk'],
          },
        },
      }),
    ])
    for (const op of ['delegate', 'task'] as const) {
      const plan = {
        steps: [{ op, agentWallet: analystWallet, prompt: 'Assess loan 42', saveAs: 'answer' }],
      }
      const result = await runPlan(plan, { registry: structured, models: offlineModels() })
      expect(result.status).toBe('done')
      const answer = JSON.parse(result.values.answer as string)
      expect(typeof answer.risk).toBe('string')
    }
  })
})
