import { createHash } from 'node:crypto'
import { ValidationError } from '@baton/core'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import type { IdempotencyKey, IdempotencyRepository } from '../db/idempotency-repository'
import { HttpError } from './http-errors'

/** The request header a client sets to make a retry of its request safe. */
export const idempotencyKeyHeader = 'idempotency-key'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route answers through `answerIdempotently`, honouring an `Idempotency-Key` header:
     * the OpenAPI document lists the header on it (`openapi-transform.ts`).
     */
    idempotent?: boolean
  }
}

/** The header as the OpenAPI document describes it, on every route that honours it. */
export const idempotencyKeyParameter = {
  type: 'string',
  pattern: '^[\\x21-\\x7e]{1,255}$',
  description:
    'Makes a retry safe: the first request with a key is answered and its answer kept (24 h, per caller and route); a retry with the same key and body gets it again (`Idempotent-Replayed: true`), with another body 422 IDEMPOTENCY_KEY_REUSED, while the first is still answered 409 IDEMPOTENCY_KEY_IN_USE.',
}

/** A key's first request that never got its answer stored is given up on after this long. */
const abandonedAfterMs = 60_000
/** Keys are kept this long: a retry later than that is a new request. */
const keptMs = 24 * 60 * 60 * 1000
/**
 * Waits between the tries to store an answer the database refused, before the request is
 * answered (~1.6 s in all); then, in the background, every `storeAgainMaxMs` at most.
 */
const storeAgainMs = [25, 50, 100, 200, 400, 800]
const storeAgainMaxMs = 1_000
const validKey = /^[\x21-\x7e]{1,255}$/

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

type Answer = { status: number; body: Record<string, unknown> }

const hasKeys = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && Object.keys(value).length > 0

/**
 * Answers a request that creates something, honouring its `Idempotency-Key` header: the first
 * request with a key runs `create` and its answer is stored (in the database, per principal
 * and route); a retry with the same key, body and path parameters gets that answer again
 * (`Idempotent-Replayed: true`), with the same key and another body 422
 * `IDEMPOTENCY_KEY_REUSED`, and while the first is still being answered 409
 * `IDEMPOTENCY_KEY_IN_USE`. A request that failed frees its key. Without the header, `create`
 * just runs.
 *
 * What a request creates has its id before it is created (`id`), kept with the key. With
 * `recover`, when the first request's process died after creating it but before its answer
 * was stored, a retry (once the claim is abandoned, after a minute) gets the answer `recover`
 * makes of it, not a second one; when it had created nothing, the retry creates it under the
 * same id. Without `recover`, that retry creates anew under its own.
 *
 * @example
 * return answerIdempotently(request, reply, {
 *   repository: repositories.idempotency,
 *   id: randomUUID(),
 *   create: async (id) => ({ status: 202, body: await service.start({ ...request.body, id }) }),
 *   recover: async (id) => ((await runs.find(id)) ? { status: 202, body: { id } } : undefined),
 * })
 */
export async function answerIdempotently(
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    repository: IdempotencyRepository
    /** The id this request creates under, unless a first request with its key took another. */
    id: string
    /** Creates what the request asks under `id`, and answers. */
    create: (id: string) => Promise<Answer>
    /** The answer to give for what was created under `id`; undefined when nothing was. */
    recover?: (id: string) => Promise<Answer | undefined>
  },
): Promise<FastifyReply> {
  // The document must say what the route does (a route that honours keys and does not say so
  // would be found by its tests, here).
  if (request.routeOptions.config.idempotent !== true) {
    throw new Error(
      `${request.method} ${request.routeOptions.url} answers idempotently: its config must say \`idempotent: true\`.`,
    )
  }
  const header = request.headers[idempotencyKeyHeader]
  if (header === undefined) {
    const { status, body } = await options.create(options.id)
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
  const own = keptBy(repository)
  if (Date.now() - own.forgotAt > 60_000) {
    own.forgotAt = Date.now()
    await repository.forget(keptMs)
  }
  if (own.unstored.has(idOf(key))) throw keyInUse(header)
  const claim = await repository.claim({
    ...key,
    // A route with path parameters (`/api/v1/swarms/:id/runs`) has one scope for all of
    // them: the key is bound to its parameters as to its body (another swarm, another request).
    requestHash: hashOf(
      hasKeys(request.params) ? { params: request.params, body: request.body } : request.body,
    ),
    resourceId: options.id,
    abandonedAfterMs,
  })
  if (claim.kind === 'mismatch') {
    throw new HttpError(
      422,
      'IDEMPOTENCY_KEY_REUSED',
      `Idempotency-Key "${header}" was used with another request body (or path) on ${key.scope}.`,
      { key: header },
    )
  }
  if (claim.kind === 'in-progress') throw keyInUse(header)
  if (claim.kind === 'replay') {
    return reply.header('idempotent-replayed', 'true').status(claim.status).send(claim.body)
  }
  // The first request with the key died unanswered: what it created, if it did, is the answer.
  const { recover } = options
  let recovered: Answer | undefined
  try {
    recovered = claim.abandoned && recover ? await recover(claim.resourceId) : undefined
  } catch (error) {
    // What the dead request made may be there, unfinished: the claim (and its id) is left
    // abandoned, so the next retry takes it at once and recovers it, not a minute later.
    await repository.abandon({ ...key, abandonedAfterMs }).catch(() => {})
    throw error
  }
  let answer: Answer
  try {
    answer = recovered ?? (await options.create(recover ? claim.resourceId : options.id))
  } catch (error) {
    // It did nothing (or undid what it did): a retry with the key goes ahead.
    await repository.release(key).catch(() => {})
    throw error
  }
  // Acknowledged only once a retry would be answered with it: an answer the database refuses
  // to store is tried again (a moment's failure is not the client's), and then kept here and
  // tried until it is stored, the key held meanwhile (a retry is told it is still in use).
  const failure = await storeAnswer(repository, { ...key, ...answer }, storeAgainMs)
  if (failure) {
    request.log.error(
      { err: failure.error, idempotencyKey: header, scope: key.scope },
      'storing the answer of an Idempotency-Key failed; tried again until it is stored',
    )
    keepStoring(repository, { ...key, ...answer }, request.log)
    throw new HttpError(
      503,
      'IDEMPOTENCY_ANSWER_NOT_STORED',
      `The request with Idempotency-Key "${header}" was carried out, but its answer could not be stored: retry with the same key to get it.`,
      { key: header },
    )
  }
  if (recovered) reply.header('idempotent-replayed', 'true')
  return reply.status(answer.status).send(answer.body)
}

/**
 * Leaves the unanswered claims of earlier processes abandoned, so the first retry of each
 * takes it (and recovers what its request made) at once, not a minute after it was made. Only
 * for a server alone, at its start, before it answers anything: every unanswered claim then
 * is a dead process's. Among many processes a claim may be a live one's, and waits its minute.
 * Resolves with how many it left.
 *
 * @example
 * if (!scaledOut) await abandonClaimsOfEarlierProcesses(repositories.idempotency)
 */
export function abandonClaimsOfEarlierProcesses(repository: IdempotencyRepository) {
  return repository.abandonUnanswered({ abandonedAfterMs })
}

function keyInUse(header: string): HttpError {
  return new HttpError(
    409,
    'IDEMPOTENCY_KEY_IN_USE',
    `The first request with Idempotency-Key "${header}" is still being answered; retry later.`,
    { key: header },
  )
}

type StoredAnswer = IdempotencyKey & Answer

/**
 * What this process keeps of each repository's keys (each app has its own): when it last
 * forgot the old ones, and the answers carried out here whose storing failed, by key. Those
 * are tried again until they are stored; until then a retry of the key in this process is
 * refused as in use, whatever the age of its claim in the database (the claim of a first
 * request that died is taken after a minute: this one did not die, and its request must not
 * run twice).
 */
const kept = new WeakMap<
  IdempotencyRepository,
  { forgotAt: number; unstored: Map<string, StoredAnswer> }
>()

function keptBy(repository: IdempotencyRepository) {
  let own = kept.get(repository)
  if (!own) {
    own = { forgotAt: 0, unstored: new Map() }
    kept.set(repository, own)
  }
  return own
}

const idOf = (key: IdempotencyKey) => `${key.scope}\n${key.key}`

/**
 * Tries to store `answer`, waiting `waits` between the tries: undefined once it is stored,
 * else the last try's error.
 */
async function storeAnswer(
  repository: IdempotencyRepository,
  answer: StoredAnswer,
  waits: readonly number[],
): Promise<{ error: unknown } | undefined> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await repository.complete(answer)
      return undefined
    } catch (error) {
      const wait = waits[attempt]
      if (wait === undefined) return { error }
      await delay(wait)
    }
  }
}

// Keeps trying in the background (its timers hold no process open) until it is stored, or
// until the key would have been forgotten (a retry that late is a new request).
function keepStoring(
  repository: IdempotencyRepository,
  answer: StoredAnswer,
  log: FastifyBaseLogger,
): void {
  const { unstored } = keptBy(repository)
  const id = idOf(answer)
  unstored.set(id, answer)
  const until = Date.now() + keptMs
  const again = () => {
    void storeAnswer(repository, answer, []).then((failure) => {
      if (failure && Date.now() < until) return void setTimeout(again, storeAgainMaxMs).unref()
      unstored.delete(id)
      if (failure) {
        log.error(
          { err: failure.error, idempotencyKey: answer.key, scope: answer.scope },
          'gave up storing the answer of an Idempotency-Key: the key is forgotten',
        )
      } else {
        log.info({ idempotencyKey: answer.key }, 'the answer of an Idempotency-Key is stored')
      }
    })
  }
  setTimeout(again, storeAgainMaxMs).unref()
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref()
  })
