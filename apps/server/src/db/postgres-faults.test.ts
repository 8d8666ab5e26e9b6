import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { findPostgresBinaries, type PostgresCluster, startPostgres } from '@baton/testing/postgres'
import { waitFor } from '@baton/testing/processes'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'

// A cluster of its own: the test stops, starts and freezes it.
const bin = findPostgresBinaries()
if (!bin && process.env.CI === 'true') throw new Error('PostgreSQL is required under CI=true')
if (!bin) console.warn('[postgres faults] PostgreSQL binaries not found: skipping.')

let cluster: PostgresCluster | undefined
let server: ServerProcess | undefined
let databaseName = ''
let dataDir: string | undefined

afterAll(async () => {
  await server?.stop({ signal: 'SIGKILL' })
  await cluster?.stop()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

beforeAll(async () => {
  if (!bin) return
  dataDir = await mkdtemp(path.join(tmpdir(), 'baton-postgres-faults-'))
  cluster = await startPostgres(bin)
  const databaseUrl = await cluster.createDatabase()
  databaseName = new URL(databaseUrl).pathname.slice(1)
  server = await startServerProcess({
    DATABASE_URL: databaseUrl,
    BATON_DATA_DIR: dataDir,
    BATON_SEED: 'false',
    BATON_RATE_LIMIT: '1000000',
    BATON_DATABASE_TIMEOUT_MS: '3000',
  })
}, 180_000)

/**
 * A request that needs the database (the runs list: the agent list is served from the
 * registry's cache), bounded so a hang fails the test instead of stalling it.
 */
async function listRuns(): Promise<{ status: number; body: { error?: { code: string } } }> {
  const response = await fetch(`${server!.url}/api/v1/runs`, {
    signal: AbortSignal.timeout(20_000),
  })
  return { status: response.status, body: (await response.json()) as { error?: { code: string } } }
}

async function ready(): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server!.url}/ready`, { signal: AbortSignal.timeout(20_000) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

async function runToTheEnd(): Promise<string> {
  const started = await fetch(`${server!.url}/api/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ plan: { steps: [{ op: 'stop', output: 'fine' }] } }),
    signal: AbortSignal.timeout(20_000),
  })
  expect(started.status).toBe(202)
  const { id } = (await started.json()) as { id: string }
  return waitFor(
    async () => {
      const run = (await (await fetch(`${server!.url}/api/v1/runs/${id}`)).json()) as {
        status: string
      }
      return ['done', 'failed'].includes(run.status) ? run.status : undefined
    },
    { timeoutMs: 60_000, what: 'the run to finish' },
  )
}

describe.skipIf(!bin)('a server on PostgreSQL when the database fails', () => {
  it('survives the termination of its connections and serves on new ones', async () => {
    // Several requests at once, so the pool holds more than one connection.
    await Promise.all(Array.from({ length: 5 }, () => listRuns()))
    const admin = new pg.Client({ connectionString: cluster!.url })
    await admin.connect()
    try {
      const { rows } = await admin.query(
        'select pg_terminate_backend(pid) as terminated from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [databaseName],
      )
      expect(rows.length).toBeGreaterThan(0)
    } finally {
      await admin.end()
    }
    // The dropped connections' errors arrive a moment later; the process must outlive them.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(server!.child.exitCode, server!.output()).toBeNull()
    const answer = await waitFor(
      async () => {
        const { status } = await listRuns()
        return status === 200 ? status : undefined
      },
      { timeoutMs: 30_000, what: 'the runs list to be served again' },
    )
    expect(answer).toBe(200)
    expect(await runToTheEnd()).toBe('done')
  }, 120_000)

  it('answers 503 DATABASE_UNAVAILABLE while PostgreSQL is stopped, /ready 503, and recovers by itself', async () => {
    await cluster!.halt()
    try {
      const during = await listRuns()
      expect(during.status).toBe(503)
      expect(during.body.error?.code).toBe('DATABASE_UNAVAILABLE')
      const started = await fetch(`${server!.url}/api/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ plan: { steps: [{ op: 'stop', output: 'x' }] } }),
        signal: AbortSignal.timeout(20_000),
      })
      expect(started.status).toBe(503)
      expect(started.headers.get('retry-after')).toBe('5')
      const refused = (await started.json()) as {
        error: { code: string; message: string; details: Record<string, unknown> }
      }
      expect(refused.error).toMatchObject({
        code: 'DATABASE_UNAVAILABLE',
        message: 'The database is unavailable: the connection was refused.',
        details: { reason: 'the connection was refused' },
      })
      // Where the database is, is the operator's: in the log, not in any answer.
      const { port } = new URL(cluster!.url)
      for (const answer of [refused, during.body]) {
        expect(JSON.stringify(answer)).not.toContain(databaseName)
        expect(JSON.stringify(answer)).not.toContain(port)
      }
      const logged = server!
        .output()
        .split('\n')
        .find((line) => line.includes('DatabaseUnavailableError'))
      expect(logged).toContain(`"location":"postgres://127.0.0.1:${port}/${databaseName}"`)
      const notReady = await ready()
      expect(notReady.status).toBe(503)
      expect(notReady.body).toMatchObject({
        error: { code: 'NOT_READY', details: { checks: { database: expect.any(String) } } },
      })
      expect(server!.child.exitCode, server!.output()).toBeNull()
    } finally {
      await cluster!.resume()
    }
    await waitFor(async () => ((await listRuns()).status === 200 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'the runs list to be served again',
    })
    expect((await ready()).status).toBe(200)
    expect(await runToTheEnd()).toBe('done')
  }, 120_000)

  it('answers /ready 503 naming the database while PostgreSQL is frozen, and 200 once it thaws', async () => {
    expect((await ready()).status).toBe(200)
    await cluster!.freeze()
    try {
      const frozen = await ready()
      expect(frozen.status).toBe(503)
      expect(frozen.body).toMatchObject({
        error: {
          code: 'NOT_READY',
          details: { checks: { database: expect.stringMatching(/no answer within/) } },
        },
      })
    } finally {
      await cluster!.thaw()
    }
    await waitFor(async () => ((await ready()).status === 200 ? true : undefined), {
      timeoutMs: 30_000,
      what: '/ready to answer 200 again',
    })
    expect(await runToTheEnd()).toBe('done')
  }, 120_000)
})
