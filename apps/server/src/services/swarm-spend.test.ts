import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { waitFor } from '@baton/testing/processes'
import { readSse } from '@baton/testing/sse'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'

const wallets: Record<string, string> = {
  analyst: '0x1111111111111111111111111111111111111111',
  reviewer: '0x2222222222222222222222222222222222222222',
  tester: '0x3333333333333333333333333333333333333333',
}

// Three rounds of three members: nine member calls, each slow enough to read the ledger
// (and to kill the process) between two of them.
const swarm = {
  id: 'slow-round-robin',
  name: 'Slow round robin',
  strategy: 'round-robin',
  maxRounds: 3,
  agents: [
    { agentId: 'analyst', role: 'worker' },
    { agentId: 'reviewer', role: 'critic' },
    { agentId: 'tester', role: 'worker' },
  ],
}
const task = '[[sleep:600]] Review the release notes'
const callsPerRun = 9
const memberCalls = [1, 2, 3].flatMap((round) =>
  ['analyst', 'reviewer', 'tester'].map((agentId) => `r${round}/${agentId}`),
)
// A swarm whose every member call is two model calls (a conclave tool in between), each slow:
// killed after the first half of a member call was charged, that call's second half not.
const twoStepSwarm = {
  ...swarm,
  id: 'two-step-round-robin',
  name: 'Two-step round robin',
  maxRounds: 1,
  sharedContext: true,
}
const twoStepTask = '[[sleep:1000]] [[tool:conclave_read {"key":"notes"}]] Check the notes'
const twoStepCalls = ['analyst', 'reviewer', 'tester'].map((agentId) => `r1/${agentId}`)

// Killed once every run has spent at least this many calls (and at most eight: none ends).
const spentBeforeKill = 3

type LedgerRow = {
  wallet: string
  stepPath: string | null
  attempt: number
  calls: number
  tokens: number
}
// biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answers loosely.
type Json = Record<string, any>

const servers: ServerProcess[] = []
let dataDir: string | undefined
let second: ServerProcess
// No budget; a budget both attempts fit in (the nine calls, plus the one in flight at the
// kill); one they do not (fewer calls than the swarm makes).
// The two-step run is last: the kill follows its read at once.
const ids = { slow: '', fits: '', tight: '', midCall: '' }
let whileRunning: { rows: LedgerRow[]; status: string } | undefined
const interrupted: Record<string, Json> = {}
// The member calls each run's journal held when its process was killed, in the order recorded.
const journaled: Record<string, string[]> = {}
const done: Record<string, Json> = {}
// The same swarm on the same task, never interrupted.
let reference: Json

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop({ signal: 'SIGKILL' })))
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

async function getJson(url: string): Promise<Json> {
  const response = await fetch(url)
  return (await response.json()) as Json
}

async function postJson(url: string, body: unknown): Promise<Json> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(response.status, JSON.stringify(await response.clone().json())).toBeLessThan(300)
  return (await response.json()) as Json
}

async function ledgerOf(url: string, id: string): Promise<LedgerRow[]> {
  return (await getJson(`${url}/api/v1/runs/${id}/ledger`)).entries
}

const sum = (rows: LedgerRow[], key: 'calls' | 'tokens') =>
  rows.reduce((total, row) => total + row[key], 0)

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'baton-swarm-spend-'))
  const environment = {
    BATON_DATA_DIR: dataDir,
    // The test polls several runs at once, faster than a client is allowed to by default.
    BATON_RATE_LIMIT: '1000000',
  }
  const first = await startServerProcess(environment)
  servers.push(first)
  await postJson(`${first.url}/api/v1/swarms`, swarm)
  const start = async (budget?: { calls: number }) =>
    (
      await postJson(`${first.url}/api/v1/swarms/${swarm.id}/runs`, {
        input: task,
        ...(budget ? { budget } : {}),
      })
    ).runId as string
  ids.slow = await start()
  ids.fits = await start({ calls: 10 })
  ids.tight = await start({ calls: 8 })
  await postJson(`${first.url}/api/v1/swarms`, twoStepSwarm)
  ids.midCall = (
    await postJson(`${first.url}/api/v1/swarms/${twoStepSwarm.id}/runs`, { input: twoStepTask })
  ).runId as string
  await waitFor(
    async () => {
      for (const id of Object.values(ids)) {
        const rows = await ledgerOf(first.url, id)
        // Read after the rows: they were on the books while the run was still running.
        const { status } = await getJson(`${first.url}/api/v1/runs/${id}`)
        if (id === ids.slow && rows.length > 0 && !whileRunning) whileRunning = { rows, status }
        if (rows.length < spentBeforeKill || status !== 'running') return undefined
        // An odd number of rows: a member call is half charged.
        if (id === ids.midCall && rows.length % 2 === 0) return undefined
      }
      return true
    },
    {
      timeoutMs: 60_000,
      intervalMs: 50,
      what: `every swarm run to spend ${spentBeforeKill} calls`,
    },
  )
  await first.stop({ signal: 'SIGKILL' })
  // Between the two processes, the journals as the killed one left them (PGlite is one
  // process's: read it while no server holds it).
  const pglite = await PGlite.create(path.join(dataDir, 'pglite'))
  try {
    for (const id of Object.values(ids)) {
      const { rows } = await pglite.query<{ key: string }>(
        'select key from swarm_calls where run_id = $1 order by at, key',
        [id],
      )
      journaled[id] = rows.map((row) => row.key)
    }
  } finally {
    await pglite.close()
  }

  // One process on PGlite: it finds the killed runs interrupted at start, and they are resumed.
  second = await startServerProcess(environment)
  servers.push(second)
  for (const id of Object.values(ids)) {
    interrupted[id] = await getJson(`${second.url}/api/v1/runs/${id}`)
    interrupted[id]!.rows = await ledgerOf(second.url, id)
    const resumed = await fetch(`${second.url}/api/v1/runs/${id}/resume`, { method: 'POST' })
    expect(resumed.status).toBe(202)
  }
  const referenceId = (
    await postJson(`${second.url}/api/v1/swarms/${swarm.id}/runs`, { input: task })
  ).runId as string
  const finished = (id: string) =>
    waitFor(
      async () => {
        const run = await getJson(`${second.url}/api/v1/runs/${id}`)
        return ['done', 'failed', 'stopped', 'cancelled'].includes(run.status) ? run : undefined
      },
      { timeoutMs: 60_000, what: 'the swarm runs to finish' },
    )
  for (const id of Object.values(ids)) done[id] = await finished(id)
  reference = await finished(referenceId)
}, 120_000)

async function eventsOf(url: string, id: string): Promise<Json[]> {
  const response = await fetch(`${url}/api/v1/runs/${id}/events`)
  const events: Json[] = []
  for await (const event of readSse(response.body!)) events.push(JSON.parse(event.data))
  return events
}

describe('a swarm run’s spend', () => {
  it('is on the ledger per member call while the run is still running, under attempt 1', () => {
    expect(whileRunning?.status).toBe('running')
    const rows = whileRunning!.rows
    expect(rows.map((row) => row.stepPath)).toEqual(memberCalls.slice(0, rows.length))
    for (const row of rows) {
      expect(row.attempt).toBe(1)
      expect(row.calls).toBe(1)
      expect(row.wallet).toBe(wallets[row.stepPath!.split('/')[1]!])
    }
  })

  it('resumes a swarm killed mid-run making only the member calls its journal had not recorded', async () => {
    const before = interrupted[ids.slow]!
    expect(before.status).toBe('interrupted')
    const killed = (before.rows as LedgerRow[]).map((row) => row.stepPath)
    expect(killed.length).toBeGreaterThanOrEqual(spentBeforeKill)
    const recorded = journaled[ids.slow]!
    // A call is recorded after its ledger rows, before the next one starts: the journal is a
    // prefix of the calls, and the call in flight at the kill was charged or not yet.
    expect(recorded).toEqual(memberCalls.slice(0, recorded.length))
    expect(killed.slice(0, recorded.length)).toEqual(recorded)
    expect(killed.length - recorded.length).toBeGreaterThanOrEqual(0)
    expect(killed.length - recorded.length).toBeLessThanOrEqual(1)

    const run = done[ids.slow]!
    expect(run.status).toBe('done')
    const rows = await ledgerOf(second.url, ids.slow)
    const byAttempt = (attempt: number) =>
      rows.filter((row) => row.attempt === attempt).map((row) => row.stepPath)
    // The killed attempt's rows are kept as they were; the second made the calls not recorded
    // (the one in flight at the kill among them, which so ran at least once), no others.
    expect(byAttempt(1)).toEqual(killed)
    expect(byAttempt(2)).toEqual(memberCalls.slice(recorded.length))
    expect(rows).toHaveLength(killed.length + callsPerRun - recorded.length)
    expect(run.usage.calls).toBe(rows.length)
    expect(run.usage.tokens).toBe(sum(rows, 'tokens'))
    for (const [agentId, wallet] of Object.entries(wallets)) {
      const own = rows.filter((row) => row.wallet === wallet)
      expect(run.usageByWallet[wallet], agentId).toMatchObject({
        calls: sum(own, 'calls'),
        tokens: sum(own, 'tokens'),
      })
    }
    const ledger = await getJson(`${second.url}/api/v1/runs/${ids.slow}/ledger`)
    expect(ledger).toMatchObject({ attempt: 2 })
    expect(ledger.ledgerTotal).toEqual(run.usage)
  })

  it('gives the output of a run never killed, every message in its events, the replayed ones marked', async () => {
    const run = done[ids.slow]!
    expect(reference.status).toBe('done')
    expect(run.output).toBe(reference.output)
    const events = await eventsOf(second.url, ids.slow)
    const work = events.filter((event) => event.type === 'swarm-message' && event.kind === 'work')
    expect(work.map((event) => `r${event.round}/${event.agentId}`)).toEqual(memberCalls)
    const recorded = journaled[ids.slow]!
    expect(work.map((event) => event.replayed === true)).toEqual(
      memberCalls.map((key) => recorded.includes(key)),
    )
    expect(events.at(-1)).toMatchObject({
      type: 'swarm-finish',
      result: { status: 'done', journal: { replayed: recorded.length, diverged: [] } },
    })
  })

  it('counts the killed attempt against the run’s budget: one that still fits succeeds', async () => {
    const run = done[ids.fits]!
    expect(run.status).toBe('done')
    const killed = (interrupted[ids.fits]!.rows as LedgerRow[]).length
    const recorded = journaled[ids.fits]!.length
    expect(run.usage.calls).toBe(killed + callsPerRun - recorded)
    expect(run.output).toBe(reference.output)
    const ledger = await getJson(`${second.url}/api/v1/runs/${ids.fits}/ledger`)
    expect(ledger.ledgerTotal).toEqual(run.usage)
  })

  it('fails with BUDGET_EXCEEDED on the second attempt when the first left too little, never spending past the budget', async () => {
    const run = done[ids.tight]!
    expect(run.status).toBe('failed')
    expect(run.error).toMatchObject({ code: 'BUDGET_EXCEEDED' })
    const killed = (interrupted[ids.tight]!.rows as LedgerRow[]).length
    const rows = await ledgerOf(second.url, ids.tight)
    // The second attempt had what the first left of the 8 calls: fewer than the swarm needs.
    expect(rows.filter((row) => row.attempt === 2)).toHaveLength(8 - killed)
    expect(run.usage.calls).toBe(8)
    expect(sum(rows, 'calls')).toBe(8)
    const ledger = await getJson(`${second.url}/api/v1/runs/${ids.tight}/ledger`)
    expect(ledger.ledgerTotal).toEqual(run.usage)
  })

  it('makes the member call in flight at the kill again (at least once): both its attempts on the books, counted once each', async () => {
    const run = done[ids.midCall]!
    expect(run.status).toBe('done')
    const killed = (interrupted[ids.midCall]!.rows as LedgerRow[]).map((row) => row.stepPath)
    const recorded = journaled[ids.midCall]!
    expect(recorded).toEqual(twoStepCalls.slice(0, recorded.length))
    // Each recorded call was charged twice; the one in flight once, and it was not recorded.
    const inFlight = twoStepCalls[recorded.length]!
    expect(killed).toEqual([...recorded.flatMap((key) => [key, key]), inFlight])
    const rows = await ledgerOf(second.url, ids.midCall)
    const byAttempt = (attempt: number) =>
      rows.filter((row) => row.attempt === attempt).map((row) => row.stepPath)
    expect(byAttempt(1)).toEqual(killed)
    // The second attempt makes the calls not recorded, the one in flight first, whole.
    expect(byAttempt(2)).toEqual(twoStepCalls.slice(recorded.length).flatMap((key) => [key, key]))
    expect(run.usage.calls).toBe(rows.length)
    const ledger = await getJson(`${second.url}/api/v1/runs/${ids.midCall}/ledger`)
    expect(ledger.ledgerTotal).toEqual(run.usage)
  })
})
