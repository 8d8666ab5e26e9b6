import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * The headers of a JSON answer kept serialised (the registry's `GET /agent/:wallet`, the agent
 * directory's `GET /api/v1/agents`), in place of helmet's dozen: these routes answer JSON to
 * other servers and scripts, never a document a browser renders, so what protects a page
 * (framing, referrer, COOP, DNS prefetch, the old IE and Flash switches) protects nothing
 * here. Kept: no MIME sniffing of the JSON, no embedding by another site's page, HTTPS only
 * once seen over HTTPS — helmet's own values. `no-cache` with the ETag: a client may keep the
 * answer but asks again each time (a change or a revocation counts at once), and gets a 304
 * if unchanged. One frozen object: setting them costs no allocation per request.
 */
export const cachedJsonHeaders = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'cache-control': 'no-cache',
})

/**
 * A JSON answer kept serialised, with its ETag, or a 304 when the client holds that ETag
 * already. It goes out as it is, through the untyped reply: the body is JSON already (the
 * route's response schema documents it), never serialised again.
 *
 * @example
 * sendKeptJson(await agentPages(query), request, reply)
 */
export function sendKeptJson(
  kept: { body: string; etag: string },
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  reply.header('etag', kept.etag)
  if (request.headers['if-none-match'] === kept.etag) return reply.code(304).send()
  return reply.send(kept.body)
}
