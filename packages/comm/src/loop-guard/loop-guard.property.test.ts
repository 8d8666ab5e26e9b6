import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createMessageBus } from '../bus/create-message-bus'

describe('createMemoryLoopGuard (property)', () => {
  it('delivers exactly maxHops + 1 messages of any chain, whoever forwards to whom', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 8 }),
        fc.array(fc.constantFrom('A', 'B', 'C', 'D'), { minLength: 12, maxLength: 20 }),
        async (maxHops, route) => {
          const bus = createMessageBus({ loopGuard: { maxHops } })
          let delivered = 0
          let refused = 0
          let message = await bus.send({
            from: { agentId: 'origin' },
            to: { agentId: 'A' },
            content: '.',
          })
          delivered += 1
          for (const next of route) {
            if (next === message.to.agentId) continue
            try {
              message = await bus.forward(message, next)
              delivered += 1
            } catch {
              refused += 1
            }
          }
          const distinctHops = route.filter(
            (next, index) => next !== (route[index - 1] ?? 'A'),
          ).length
          expect(delivered).toBe(Math.min(maxHops, distinctHops) + 1)
          expect(bus.escalations().length).toBe(refused > 0 ? 1 : 0)
          await bus.close()
        },
      ),
      { numRuns: 60 },
    )
  })
})
