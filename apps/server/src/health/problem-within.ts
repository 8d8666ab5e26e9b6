/**
 * Runs a check that resolves with a problem (or undefined when all is well), and answers
 * `no answer within N ms` if it has not settled by then; a check that throws answers its
 * message. Readiness checks never hang on what they check.
 *
 * @example
 * const problem = await problemWithin(() => ping(), 2_000) // undefined, or why not
 */
export async function problemWithin(
  check: () => Promise<string | undefined>,
  timeoutMs: number,
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs)
  })
  const outcome = check().catch((error: unknown) =>
    error instanceof Error ? error.message.split('\n')[0] : String(error),
  )
  try {
    return await Promise.race([outcome, timeout])
  } finally {
    clearTimeout(timer)
  }
}
