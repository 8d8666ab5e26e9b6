import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Envelope } from '@baton/comm'
import { waitFor } from '@baton/testing/processes'
import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { leaveClaimOfDeadRequest } from '../__fixtures__/dead-request-claim'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'
import { slowDelegatePlan } from '../__fixtures__/slow-plans'
import type { Database } from '../db/database'
import { createMessagesRepository } from '../db/messages-repository'
import { migrate, openDatabase } from '../db/open-database'

const servers: ServerProcess[] = []
let dataDir: string | undefined

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop({ signal: 'SIGKILL' })))
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

/** Opens the server's embedded database while no server holds it, runs `change`, closes it. */
async function withDatabase<T>(change: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const { db } = await openDatabase({ dataDir: dataDir! })
  try {
    await migrate(db)
    return await change(db)
  } finally {
    await db.destroy()
  }
}

/** `POST /api/v1/runs` of a one-step plan named `name`, with `Idempotency-Key: key`. */
const postRun = (server: ServerProcess, key: string, name: string) =>
  fetch(`${server.url}/api/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ plan: slowDelegatePlan({ name, ms: 1, steps: 1 }) }),
  })

/** Waits until `server` lists the run of the plan named `name` as done. */
const runEnded = (server: ServerProcess, name: string) =>
  waitFor(
    async () => {
      const response = await fetch(`${server.url}/api/v1/runs?status=done&limit=10`)
      const { runs } = (await response.json()) as { runs: { name: string | null }[] }
      return runs.some((run) => run.name === name) ? true : undefined
    },
    { timeoutMs: 30_000, intervalMs: 50, what: `the run of ${name} to end` },
  )

const runsNamed = (db: Kysely<Database>, name: string) =>
  db.selectFrom('runs').select(['id', 'status']).where(sql`plan->>'name'`, '=', name).execute()

/** The database refuses to store any request's answer (disk full, raised by the database itself). */
const refuseAnswers = (db: Kysely<Database>) =>
  sql`create trigger refuse_answers before update on idempotency_keys for each row execute function refuse_answers()`.execute(
    db,
  )

/** A server on a database that refuses to store any request's answer (see `refuseAnswers`). */
async function startRefusingAnswers(environment: Record<string, string>): Promise<ServerProcess> {
  await withDatabase(refuseAnswers)
  const server = await startServerProcess(environment)
  servers.push(server)
  return server
}

describe('Idempotency-Key through a crash', () => {
  // One data folder for the file's servers, one after the other.
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'baton-idempotency-crash-'))
    await withDatabase(async (db) => {
      await sql
        .raw(`create function refuse_answers() returns trigger language plpgsql as $$
          begin
            if new.response_status is not null then
              raise exception 'could not extend file: No space left on device' using errcode = 'disk_full';
            end if;
            return new;
          end $$`)
        .execute(db)
    })
  }, 60_000)

  it('answers the retry of a request whose process died before storing its answer with the run it made, not a second run', async () => {
    const environment = { BATON_DATA_DIR: dataDir! }
    const post = (server: ServerProcess) => postRun(server, 'order-7', 'keyed')
    // The run is stored, its answer is not, and the process is killed before it can store it.
    const first = await startRefusingAnswers(environment)
    const refused = await post(first)
    expect(refused.status).toBe(503)
    expect((await refused.json()).error.code).toBe('IDEMPOTENCY_ANSWER_NOT_STORED')
    // The run it made has ended (one offline call) before the process is killed.
    await runEnded(first, 'keyed')
    await first.stop({ signal: 'SIGKILL' })

    // The disk has room again, and the dead request's claim is past the minute after which
    // its key is taken by a retry.
    const [made] = await withDatabase(async (db) => {
      await sql`drop trigger refuse_answers on idempotency_keys`.execute(db)
      await sql`update idempotency_keys set created_at = now() - interval '2 minutes'`.execute(db)
      const stored = await db
        .selectFrom('idempotency_keys')
        .select(['response_status', 'resource_id'])
        .executeTakeFirst()
      expect(stored?.response_status).toBeNull()
      return runsNamed(db, 'keyed')
    })
    expect(made?.id).toBeDefined()

    const second = await startServerProcess(environment)
    servers.push(second)
    const retried = await post(second)
    expect(retried.status).toBe(202)
    expect(retried.headers.get('idempotent-replayed')).toBe('true')
    expect((await retried.json()).id).toBe(made?.id)
    // Answered from now on like any stored answer...
    const again = await post(second)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect((await again.json()).id).toBe(made?.id)
    // ...and the one run there is the first one, as it ended.
    const response = await fetch(`${second.url}/api/v1/runs/${made?.id}`)
    expect(((await response.json()) as { status: string }).status).toBe('done')
    await second.stop({ signal: 'SIGKILL' })
    const runs = await withDatabase((db) => runsNamed(db, 'keyed'))
    expect(runs).toEqual([{ id: made?.id, status: 'done' }])
  }, 120_000)

  // Before, the retry was 409 IDEMPOTENCY_KEY_IN_USE until a minute after the dead request's
  // claim: a client that retried for less (the playground's 30 s) gave up on a run it had made.
  it('lets a server alone take the claims its killed predecessor left unanswered at its start, so the first retry recovers at once', async () => {
    const environment = { BATON_DATA_DIR: dataDir! }
    const first = await startRefusingAnswers(environment)
    const refused = await postRun(first, 'order-9', 'retried-at-once')
    expect(refused.status).toBe(503)
    await runEnded(first, 'retried-at-once')
    await first.stop({ signal: 'SIGKILL' })
    // The disk has room again; the claim is seconds old, as a crash and a restart leave it.
    const [made] = await withDatabase(async (db) => {
      await sql`drop trigger refuse_answers on idempotency_keys`.execute(db)
      const claim = await db
        .selectFrom('idempotency_keys')
        .select(['response_status', 'created_at'])
        .where('key', '=', 'order-9')
        .executeTakeFirstOrThrow()
      expect(claim.response_status).toBeNull()
      expect(Date.now() - new Date(claim.created_at).getTime()).toBeLessThan(50_000)
      return runsNamed(db, 'retried-at-once')
    })
    const second = await startServerProcess(environment)
    servers.push(second)
    const retried = await postRun(second, 'order-9', 'retried-at-once')
    expect(retried.status, await retried.clone().text()).toBe(202)
    expect(retried.headers.get('idempotent-replayed')).toBe('true')
    expect((await retried.json()).id).toBe(made?.id)
    // The start said why a key of before answers at once.
    expect(second.output()).toContain('Idempotency-Keys left unanswered by the last stop')
    await second.stop({ signal: 'SIGKILL' })
    expect(await withDatabase((db) => runsNamed(db, 'retried-at-once'))).toEqual([
      { id: made?.id, status: 'done' },
    ])
  }, 120_000)

  it('creates the run under the id the dead request took when that request had created nothing', async () => {
    // The claim of a request whose process died before it stored its run.
    const abandonedId = '5f0c7f2e-5d1e-4b8e-9a53-0b5f8d1c2a10'
    const server = await startServerProcess({ BATON_DATA_DIR: dataDir! })
    servers.push(server)
    // The first request claims the key, and its answer is stored: take the answer away and
    // the run with it, as if neither had been written, and set the claim's id.
    const first = await postRun(server, 'order-8', 'never-made')
    expect(first.status).toBe(202)
    const firstId = ((await first.json()) as { id: string }).id
    await server.stop({ signal: 'SIGKILL' })
    await withDatabase(async (db) => {
      await db.deleteFrom('runs').where('id', '=', firstId).execute()
      await leaveClaimOfDeadRequest(db, 'order-8', abandonedId)
    })
    const restarted = await startServerProcess({ BATON_DATA_DIR: dataDir! })
    servers.push(restarted)
    const retried = await postRun(restarted, 'order-8', 'never-made')
    expect(retried.status).toBe(202)
    // Made now, so not a replay; under the id kept with the key, so a crash now would find it.
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
    expect((await retried.json()).id).toBe(abandonedId)
    // ...and runs to its end.
    await waitFor(
      async () => {
        const response = await fetch(`${restarted.url}/api/v1/runs/${abandonedId}`)
        return ((await response.json()) as { status: string }).status === 'done' ? true : undefined
      },
      { timeoutMs: 30_000, intervalMs: 50, what: 'the run made under the kept id to end' },
    )
    await restarted.stop({ signal: 'SIGKILL' })
    const runs = await withDatabase((db) => runsNamed(db, 'never-made'))
    expect(runs).toEqual([{ id: abandonedId, status: 'done' }])
  }, 120_000)

  /** `POST /api/v1/messages` to the hosted analyst, with `Idempotency-Key: key`. */
  const postMessage = (server: ServerProcess, key: string, correlationId: string) =>
    fetch(`${server.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({
        from: { agentId: 'person' },
        to: { agentId: 'analyst' },
        content: '[[answer:two risks found]] look at the outage',
        correlationId,
      }),
    })
  type Sent = { id: string; type: string; inReplyTo?: string }
  const conversation = async (server: ServerProcess, correlationId: string) =>
    (
      (await (await fetch(`${server.url}/api/v1/conversations/${correlationId}`)).json()) as {
        messages: Sent[]
      }
    ).messages

  it('answers the retry of a message whose process died before storing its answer with the message it stored, not a second one', async () => {
    const environment = { BATON_DATA_DIR: dataDir! }
    const first = await startRefusingAnswers(environment)
    const refused = await postMessage(first, 'note-1', 'corr-crash-sent')
    expect(refused.status).toBe(503)
    expect((await refused.json()).error.code).toBe('IDEMPOTENCY_ANSWER_NOT_STORED')
    // Sent: the analyst has answered it before the process is killed.
    const before = await waitFor(
      async () => {
        const messages = await conversation(first, 'corr-crash-sent')
        return messages.some((message) => message.type === 'reply') ? messages : undefined
      },
      { timeoutMs: 30_000, intervalMs: 50, what: 'the analyst to answer' },
    )
    const sentId = before[0]!.id
    await first.stop({ signal: 'SIGKILL' })
    await withDatabase(async (db) => {
      await sql`drop trigger refuse_answers on idempotency_keys`.execute(db)
      await sql`update idempotency_keys set created_at = now() - interval '2 minutes' where key = 'note-1'`.execute(
        db,
      )
    })
    const second = await startServerProcess(environment)
    servers.push(second)
    const retried = await postMessage(second, 'note-1', 'corr-crash-sent')
    expect(retried.status).toBe(202)
    expect(retried.headers.get('idempotent-replayed')).toBe('true')
    expect(((await retried.json()) as { envelope: Sent }).envelope.id).toBe(sentId)
    // The person's message is in the conversation once.
    const after = await conversation(second, 'corr-crash-sent')
    expect(
      after.filter((message) => message.type !== 'reply').map((message) => message.id),
    ).toEqual([sentId])
    await second.stop({ signal: 'SIGKILL' })
  }, 120_000)

  it('sends the message under the id the dead request took when that request had stored nothing', async () => {
    const server = await startServerProcess({ BATON_DATA_DIR: dataDir! })
    servers.push(server)
    const first = await postMessage(server, 'note-2', 'corr-crash-unsent')
    expect(first.status).toBe(202)
    const made = ((await first.json()) as { envelope: Sent }).envelope
    await waitFor(
      async () =>
        (await conversation(server, 'corr-crash-unsent')).length === 2 ? true : undefined,
      { timeoutMs: 30_000, intervalMs: 50, what: 'the analyst to answer' },
    )
    await server.stop({ signal: 'SIGKILL' })
    // What a process that died before storing its message leaves: the key's claim, unanswered,
    // with the id its request took (the exchange above taken away, as if never made).
    const kept = 'msg-never-stored'
    await withDatabase(async (db) => {
      await db.deleteFrom('messages').where('correlation_id', '=', 'corr-crash-unsent').execute()
      await leaveClaimOfDeadRequest(db, 'note-2', kept)
    })
    const restarted = await startServerProcess({ BATON_DATA_DIR: dataDir! })
    servers.push(restarted)
    const retried = await postMessage(restarted, 'note-2', 'corr-crash-unsent')
    expect(retried.status).toBe(202)
    // Sent now, so not a replay; under the kept id, so a crash now would find it.
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
    expect(((await retried.json()) as { envelope: Sent }).envelope.id).toBe(kept)
    expect(kept).not.toBe(made.id)
    const messages = await waitFor(
      async () => {
        const read = await conversation(restarted, 'corr-crash-unsent')
        return read.some((message) => message.type === 'reply') ? read : undefined
      },
      { timeoutMs: 30_000, intervalMs: 50, what: 'the analyst to answer the message' },
    )
    expect(messages.map((message) => [message.id, message.inReplyTo])).toEqual([
      [kept, undefined],
      [expect.any(String), kept],
    ])
    await restarted.stop({ signal: 'SIGKILL' })
  }, 120_000)

  it('sends the retry of a message whose process died after storing it and before sending it', async () => {
    const server = await startServerProcess({ BATON_DATA_DIR: dataDir! })
    servers.push(server)
    const first = await postMessage(server, 'note-3', 'corr-crash-stored')
    expect(first.status).toBe(202)
    const made = ((await first.json()) as { envelope: Envelope }).envelope
    await waitFor(
      async () =>
        (await conversation(server, 'corr-crash-stored')).length === 2 ? true : undefined,
      { timeoutMs: 30_000, intervalMs: 50, what: 'the analyst to answer' },
    )
    await server.stop({ signal: 'SIGKILL' })
    // What a process that died after storing its message and before the bus took it leaves:
    // the message, stored by the route's own repository, and the key's claim, unanswered (the
    // exchange above taken away, as if never made).
    const kept = 'msg-stored-never-sent'
    await withDatabase(async (db) => {
      await db.deleteFrom('messages').where('correlation_id', '=', 'corr-crash-stored').execute()
      await createMessagesRepository(db).save({ ...made, id: kept })
      await leaveClaimOfDeadRequest(db, 'note-3', kept)
    })
    const restarted = await startServerProcess({ BATON_DATA_DIR: dataDir! })
    servers.push(restarted)
    const retried = await postMessage(restarted, 'note-3', 'corr-crash-stored')
    expect(retried.status).toBe(202)
    expect(((await retried.json()) as { envelope: Sent }).envelope.id).toBe(kept)
    // Sent now: the analyst answers it, and it is in the conversation once.
    const messages = await waitFor(
      async () => {
        const read = await conversation(restarted, 'corr-crash-stored')
        return read.some((message) => message.type === 'reply') ? read : undefined
      },
      { timeoutMs: 30_000, intervalMs: 50, what: 'the analyst to answer the stored message' },
    )
    expect(messages.map((message) => [message.id, message.inReplyTo])).toEqual([
      [kept, undefined],
      [expect.any(String), kept],
    ])
    // Sent once: a second retry is answered with it, and the analyst does not answer again.
    const again = await postMessage(restarted, 'note-3', 'corr-crash-stored')
    expect(((await again.json()) as { envelope: Sent }).envelope.id).toBe(kept)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await conversation(restarted, 'corr-crash-stored')).toHaveLength(2)
    await restarted.stop({ signal: 'SIGKILL' })
  }, 120_000)
})
