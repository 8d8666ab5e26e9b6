// biome-ignore lint/suspicious/noExplicitAny: tests read the JSON answers loosely.
export type Json = Record<string, any>

/**
 * A GET of `url`, or a POST of `body` as JSON when one is given; the answer's status and JSON
 * body. Bounded: a server that hangs fails the test instead of holding it.
 *
 * @example
 * const { status, body } = await callJson(`${server.url}/api/v1/escalations/${id}/allow`, { extraHops: 2 })
 */
export async function callJson(
  url: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    ...(body === undefined
      ? {}
      : {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
    signal: AbortSignal.timeout(30_000),
  })
  return { status: response.status, body: (await response.json()) as Json }
}
