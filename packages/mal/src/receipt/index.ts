export { type BuildRunReceiptInput, buildRunReceipt } from './build-run-receipt'
export { ReceiptSignerMissingError } from './receipt-errors'
export { stepAt } from './step-at'
export { stepInputHash } from './step-input-hash'
