import { createHash } from 'node:crypto'
import { ValidationError } from '@baton/core'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { IdempotencyRepository } from '../db/idempotency-repository'
import { HttpError } from './http-errors'

/** The request header a client sets to make a retry of its request safe. */
export const idempotencyKeyHeader = 'idempotency-key'

/** A key's first request that never got its answer stored is given up on after this long. */
const abandonedAfterMs = 60_000
/** Keys are kept this long: a retry later than that is a new request. */
const keptMs = 24 * 60 * 60 * 1000
const validKey = /^[\x21-\x7e]{1,255}$/

let lastForgotAt = 0

/** The body's JSON with its object keys sorted, hashed: equal bodies hash alike. */
function hashOf(body: unknown): string {
  const sorted = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sorted)
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
      )
    }
    return value
  }
  return createHash('sha256')
    .update(JSON.stringify(sorted(body ?? null)))
    .digest('hex')
}

/**
 * Answers a request that creates something, honouring its `Idempotency-Key` header: the first
 * request with a key runs `create` and its answer is stored (in the database, per principal
 * and route); a
 * retry with the same key and body gets that answer again (`Idempotent-Replayed: true`), with
 * the same key and another body 422 `IDEMPOTENCY_KEY_REUSED`, and while the first is still
 * being answered 409 `IDEMPOTENCY_KEY_IN_USE`. A request that failed frees its key. Without
 * the header, `create` just runs.
 *
 * @example
 * return answerIdempotently(request, reply, {
 *   repository: repositories.idempotency,
 *   create: async () => ({ status: 202, body: await service.start(request.body) }),
 * })
 */
export async function answerIdempotently(
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    repository: IdempotencyRepository
    create: () => Promise<{ status: number; body: Record<string, unknown> }>
  },
): Promise<FastifyReply> {
  const header = request.headers[idempotencyKeyHeader]
  if (header === undefined) {
    const { status, body } = await options.create()
    return reply.status(status).send(body)
  }
  if (typeof header !== 'string' || !validKey.test(header)) {
    throw new ValidationError('headers', [
      {
        path: 'Idempotency-Key',
        message: 'must be 1 to 255 visible ASCII characters, sent once',
      },
    ])
  }
  // Each principal's keys are its own (as a payment API's are per account): another party that
  // sends the same key (a guessable one, `order-123`) neither gets this answer replayed nor
  // stops this request from running.
  const key = {
    scope: `${request.principal?.id ?? 'anonymous'} ${request.method} ${request.routeOptions.url}`,
    key: header,
  }
  const { repository } = options
  if (Date.now() - lastForgotAt > 60_000) {
    lastForgotAt = Date.now()
    await repository.forget(keptMs)
  }
  const claim = await repository.claim({
    ...key,
    requestHash: hashOf(request.body),
    abandonedAfterMs,
  })
  if (claim.kind === 'mismatch') {
    throw new HttpError(
      422,
      'IDEMPOTENCY_KEY_REUSED',
      `Idempotency-Key "${header}" was used with another request body on ${key.scope}.`,
      { key: header },
    )
  }
  if (claim.kind === 'in-progress') {
    throw new HttpError(
      409,
      'IDEMPOTENCY_KEY_IN_USE',
      `The first request with Idempotency-Key "${header}" is still being answered; retry later.`,
      { key: header },
    )
  }
  if (claim.kind === 'replay') {
    return reply.header('idempotent-replayed', 'true').status(claim.status).send(claim.body)
  }
  let answer: { status: number; body: Record<string, unknown> }
  try {
    answer = await options.create()
  } catch (error) {
    // It did nothing (or undid what it did): a retry with the key goes ahead.
    await repository.release(key).catch(() => {})
    throw error
  }
  await repository.complete({ ...key, ...answer }).catch((error: unknown) => {
    request.log.error({ err: error, idempotencyKey: header }, 'storing the answer of a key failed')
  })
  return reply.status(answer.status).send(answer.body)
}
