import { signRunReceipt } from '@baton/core'
import type { Plan } from '../plan'
import type { RunEvent } from '../run/run-event'
import type { RunPlanOptions, RunResult } from '../run/run-options'
import { buildRunReceipt } from './build-run-receipt'
import { ReceiptSignerMissingError } from './receipt-errors'

/**
 * Runs `execute` and, when the plan or the options ask for a receipt, signs one from every
 * event the run emitted. Refuses to start a run whose receipt could not be signed.
 *
 * @example
 * return withReceipt(plan, inputs, options, (observed) => executeRun({ ...input, options: observed }))
 */
export async function withReceipt(
  plan: Plan,
  inputs: Record<string, unknown>,
  options: RunPlanOptions,
  execute: (options: RunPlanOptions) => Promise<RunResult>,
): Promise<RunResult> {
  const wanted = plan.requireReceipt === true || options.requireReceipt === true
  if (!wanted) return execute(options)
  const signer = options.receiptSigner
  if (!signer) {
    throw new ReceiptSignerMissingError(
      plan.requireReceipt ? 'the plan says requireReceipt' : 'the runtime requires receipts',
    )
  }
  const events: RunEvent[] = []
  const { onEvent } = options
  const result = await execute({
    ...options,
    onEvent: (event) => {
      events.push(event)
      onEvent?.(event)
    },
  })
  const content = buildRunReceipt({ plan, inputs, events, usageByWallet: result.usageByWallet })
  return { ...result, receipt: await signRunReceipt(content, signer) }
}
