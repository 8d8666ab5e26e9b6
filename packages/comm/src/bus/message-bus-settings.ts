import { z } from 'zod'
import { isLoopGuard } from '../loop-guard/is-loop-guard'
import { FunctionOption, LoopGuardSettings, PositiveWhole } from '../options/option-schemas'

const TransportShape = z.object({
  name: z.string().min(1),
  start: FunctionOption,
  publish: FunctionOption,
  close: FunctionOption,
})

/**
 * What `createMessageBus` checks of its options before it builds anything, so a mistake is
 * a `ValidationError` naming the option rather than a bus that silently refuses everything.
 */
export const MessageBusSettings = z
  .object({
    transport: TransportShape.loose().optional(),
    loopGuard: z.unknown().optional(),
    retention: z
      .object({
        maxMessages: PositiveWhole.optional(),
        maxAgeMs: PositiveWhole.optional(),
        maxCorrelations: PositiveWhole.optional(),
      })
      .optional(),
    requireSignatures: z.boolean().optional(),
    signatureMaxAgeMs: PositiveWhole.optional(),
    resolveWallet: FunctionOption.optional(),
    resolveAccount: FunctionOption.optional(),
    onEscalation: FunctionOption.optional(),
    onDeliveryError: FunctionOption.optional(),
    now: FunctionOption.optional(),
  })
  .superRefine((options, context) => {
    if (options.requireSignatures && !options.resolveWallet) {
      context.addIssue({
        code: 'custom',
        path: ['resolveWallet'],
        message: 'is required with requireSignatures: true (it names the wallet of each sender)',
      })
    }
    if (options.loopGuard === undefined || isLoopGuard(options.loopGuard)) return
    const guard = LoopGuardSettings.safeParse(options.loopGuard)
    for (const issue of guard.success ? [] : guard.error.issues) {
      context.addIssue({
        code: 'custom',
        path: ['loopGuard', ...issue.path],
        message: issue.message,
      })
    }
  })

/** What `bus.subscribe` takes: an agent id and a handler for its envelopes. */
export const Subscription = z.object({ agentId: z.string().min(1), handler: FunctionOption })
