/** What the browser found when it checked a run's receipt. */
export type ReceiptCheck =
  | {
      state: 'verified'
      /** The address whose signature the receipt carries (checksummed). */
      signer: string
      /** Whose address the signature was checked against: the server's word, or the receipt's own. */
      trust: 'server' | 'receipt'
      planHash: string
      runStatus: string
      steps: number
      issuedAt: string
      /** The run data on this page that the receipt was checked against, beside its signature. */
      matched: ('inputs' | 'output')[]
    }
  | {
      state: 'invalid'
      /** The typed error's stable code: `RECEIPT_TAMPERED`, `RECEIPT_SIGNATURE_INVALID`, `VALIDATION_FAILED`. */
      code: string
      /** The field that failed: `steps[0].outputHash`, `signature`, `runtime`, ... */
      field: string
      message: string
    }
  /** The server has none: the plan did not ask for one (404). */
  | { state: 'missing'; message: string }
  /** The run has not finished, so it has no receipt yet (409). */
  | { state: 'pending'; message: string }
  /** The receipt could not be read (the server did not answer). */
  | { state: 'unreadable'; message: string }
