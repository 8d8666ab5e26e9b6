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
  const [check, setCheck] = useState<ReceiptCheck>()
  // The run detail is read again on every event; the check only needs it as of the end.
  const runRef = useRef(run)
  runRef.current = run
  const ready = finalStatus !== undefined && run !== undefined

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new final status (a resumed run that ends again) is a new receipt to check
  useEffect(() => {
    setCheck(undefined)
    if (!ready) return
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
      if (live) setCheck(result)
    })()
    return () => {
      live = false
    }
  }, [runId, finalStatus, ready])

  return check
}
