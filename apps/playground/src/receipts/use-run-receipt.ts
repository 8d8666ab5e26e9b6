import { useEffect, useRef, useState } from 'react'
import { serverApi } from '../api/client'
import { checkRunReceipt } from './check-run-receipt'
import type { ReceiptCheck } from './receipt-check'

/**
 * The receipt check of a finished run, made once per run and final status (a receipt is
 * fixed once the run has finished; a live run has none yet). `undefined` while checking or
 * while the run is still going.
 *
 * @example
 * const receipt = useRunReceipt(runId, run, finished.has(status) ? status : undefined)
 */
export function useRunReceipt(
  runId: string,
  run: { inputs?: unknown; output?: unknown } | undefined,
  finalStatus: string | undefined,
): ReceiptCheck | undefined {
  // Kept with the run and final status it is for: a run read again (a reopened stream, a
  // refetch that briefly has no detail) shows the check it has, not "Checking…" again.
  const [check, setCheck] = useState<{ key: string; check: ReceiptCheck }>()
  const key = `${runId}\u0000${finalStatus ?? ''}`
  // The run detail is read again on every event; the check only needs it as of the end.
  const runRef = useRef(run)
  runRef.current = run
  const ready = finalStatus !== undefined && run !== undefined
  const checkedKey = useRef<string | undefined>(undefined)

  useEffect(() => {
    // A new final status (a resumed run that ends again) is a new receipt to check.
    if (!ready || checkedKey.current === key) return
    let live = true
    void (async () => {
      // Pin the address the server publishes; an older server without the route leaves the
      // check to the signer the receipt names (and the page says so).
      const runtime = await serverApi.getRuntime().then(
        (published) => published.address,
        () => undefined,
      )
      const result = await checkRunReceipt({
        load: () => serverApi.getRunReceipt(runId),
        run: runRef.current,
        runtime,
      })
      if (!live) return
      checkedKey.current = key
      setCheck({ key, check: result })
    })()
    return () => {
      live = false
    }
  }, [runId, key, ready])

  return check?.key === key ? check.check : undefined
}
