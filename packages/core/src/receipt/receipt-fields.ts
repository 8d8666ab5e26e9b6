import { type Hash, hashJson } from './hash-json'
import type { RunReceiptContent } from './run-receipt'

/**
 * A hash per field of a receipt's content (and of its runtime), one level into lists and records: `runId`,
 * `steps.length`, `steps[2].outputHash`, `usageByWallet.0xabc…`, ... A change anywhere changes
 * exactly the entry of its field, which is how a verifier names it.
 *
 * @example
 * receiptFieldHashes(content)['steps[0].status'] // '0x…'
 */
export function receiptFieldHashes(
  content: RunReceiptContent & { runtime: string },
): Record<string, Hash> {
  const hashes: Record<string, Hash> = {}
  for (const [key, value] of Object.entries(content)) {
    if (value === undefined) continue
    if (Array.isArray(value)) {
      hashes[`${key}.length`] = hashJson(value.length)
      value.forEach((item, index) => {
        for (const [field, member] of Object.entries(item as Record<string, unknown>)) {
          if (member !== undefined) hashes[`${key}[${index}].${field}`] = hashJson(member)
        }
      })
    } else if (key === 'usageByWallet') {
      hashes[`${key}.size`] = hashJson(Object.keys(value).length)
      for (const [wallet, usage] of Object.entries(value as Record<string, unknown>)) {
        hashes[`${key}.${wallet}`] = hashJson(usage)
      }
    } else {
      hashes[key] = hashJson(value)
    }
  }
  return hashes
}
