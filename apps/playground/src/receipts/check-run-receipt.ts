import { BatonError, verifyRunReceipt } from '@baton/core'
import type { ReceiptCheck } from './receipt-check'

export type CheckRunReceiptOptions = {
  /** Reads the receipt from the server (`GET /api/v1/runs/:id/receipt`). */
  load: () => Promise<unknown>
  /** The run as this page shows it: its inputs and output are checked against the receipt's hashes. */
  run?: { inputs?: unknown; output?: unknown } | undefined
  /**
   * The runtime address to trust, when the server publishes one. Without it the receipt is
   * checked against the signer it names: that proves nothing was changed since it was signed,
   * not who signed it, so the page shows the signer for a person to compare.
   */
  runtime?: string | undefined
}

function statusOf(error: unknown): number | undefined {
  return BatonError.isInstance(error) ? (error.details.status as number | undefined) : undefined
}

function fieldOf(error: BatonError): string {
  const { field, issues } = error.details as { field?: unknown; issues?: { path?: string }[] }
  if (typeof field === 'string') return field
  return issues?.[0]?.path || 'receipt'
}

/**
 * Reads a run's receipt and verifies it here, in the browser, with `verifyRunReceipt` from
 * `@baton/core`: every field's hash, the EIP-712 signature, and the run's inputs and output
 * as the page shows them. Never throws: every outcome is a `ReceiptCheck` to show.
 *
 * @example
 * const check = await checkRunReceipt({ load: () => serverApi.getRunReceipt(id), run })
 * if (check.state === 'verified') console.log(`signed by ${check.signer}`)
 */
export async function checkRunReceipt(options: CheckRunReceiptOptions): Promise<ReceiptCheck> {
  let body: unknown
  try {
    body = await options.load()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const status = statusOf(error)
    if (status === 404) return { state: 'missing', message }
    if (status === 409) return { state: 'pending', message }
    return { state: 'unreadable', message }
  }
  const claimed = (body as { runtime?: unknown } | null)?.runtime
  const runtime = options.runtime ?? (typeof claimed === 'string' ? claimed : '')
  const run = options.run ?? {}
  // Only what the page has is checked: a hash is compared with data that is present.
  const matched = (['inputs', 'output'] as const).filter((key) => key in run)
  try {
    const { receipt, signer } = await verifyRunReceipt(body, {
      runtime,
      ...(matched.includes('inputs') ? { inputs: run.inputs as Record<string, unknown> } : {}),
      ...(matched.includes('output') ? { output: run.output } : {}),
    })
    return {
      state: 'verified',
      signer,
      trust: options.runtime ? 'server' : 'receipt',
      planHash: receipt.planHash,
      runStatus: receipt.status,
      steps: receipt.steps.length,
      issuedAt: receipt.issuedAt,
      matched,
    }
  } catch (error) {
    if (!BatonError.isInstance(error)) {
      const message = error instanceof Error ? error.message : String(error)
      return { state: 'invalid', code: 'RECEIPT_UNCHECKABLE', field: 'receipt', message }
    }
    return {
      state: 'invalid',
      code: error.code,
      field: fieldOf(error),
      message: error.shortMessage,
    }
  }
}
