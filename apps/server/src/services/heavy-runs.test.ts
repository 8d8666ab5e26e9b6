import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { readSse } from '@baton/testing/sse'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ServerProcess, startServerProcess } from '../__fixtures__/server-process'
import { openDatabase } from '../db/open-database'
import { createRunsRepository } from '../db/runs-repository'

// What the attack needed: a plan of loops around a write that never waits for anything.
// 10 000 iterations of four scratch writes is 40 001 steps: within the default cap of
// 50 000, so it is accepted, and long enough to be running while the test probes the server.
const heavyPlan = {
  name: 'heavy',
  steps: [
    {
      op: 'loop',
      while: 'true',
      maxIters: 10_000,
      do: ['a', 'b', 'c', 'd'].map((key) => ({ op: 'scratch', action: 'write', key, value: 'v' })),
    },
    { op: 'stop', output: 'done' },
  ],
}

// The plan of the report: three nested 10 000-iteration loops, 10^12 steps at worst.
const freezingPlan = [
  'name: freeze',
  'steps:',
  '  - op: loop',
  '    while: "true"',
  '    maxIters: 10000',
  '    do:',
  '      - op: loop',
  '        while: "true"',
  '        maxIters: 10000',
  '        do:',
  '          - op: loop',
  '            while: "true"',
  '            maxIters: 10000',
  '            do:',
  '              - { op: scratch, action: write, key: k, value: v }',
].join('\n')

// Generous for a loaded machine, far below what a frozen process takes (it answers never).
const answersWithinMs = 1000
const endsWithinMs = 3000

let server: ServerProcess | undefined
let dataDir: string | undefined

afterAll(async () => {
  await server?.stop({ signal: 'SIGKILL' })
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'baton-heavy-'))
  server = await startServerProcess({
    BATON_DATA_DIR: dataDir,
    BATON_SEED: 'false',
    BATON_RATE_LIMIT: '1000000',
  })
}, 130_000)

async function post(url: string, body?: unknown, timeoutMs = 30_000): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(timeoutMs),
  })
}

// biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answers loosely.
async function getJson(url: string, timeoutMs = 30_000): Promise<Record<string, any>> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) })
  // biome-ignore lint/suspicious/noExplicitAny: the test reads the JSON answers loosely.
  return (await response.json()) as Record<string, any>
}

async function startHeavyRun(url: string): Promise<string> {
  const started = await post(`${url}/api/v1/runs`, { plan: heavyPlan })
  expect(started.status).toBe(202)
  const { id } = (await started.json()) as { id: string }
  // Well into its loop: its stored events (read as a client would) reach the tenth iteration.
  const reading = new AbortController()
  const timer = setTimeout(() => reading.abort(), 60_000)
  try {
    const stream = await fetch(`${url}/api/v1/runs/${id}/events`, { signal: reading.signal })
    for await (const event of readSse(stream.body!)) {
      if (((JSON.parse(event.data) as { iteration?: number }).iteration ?? 0) >= 10) break
    }
  } finally {
    clearTimeout(timer)
    reading.abort()
  }
  return id
}

/** How long one request takes to be answered (it throws past `answersWithinMs`). */
async function timeHealth(url: string): Promise<number> {
  const started = performance.now()
  const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(answersWithinMs) })
  expect(response.status).toBe(200)
  return performance.now() - started
}

describe('a plan that would freeze the server', () => {
  it('is refused by /plans/validate and POST /runs, naming the outer loop and the cap', async () => {
    const url = server!.url
    const validated = await post(`${url}/api/v1/plans/validate`, { plan: freezingPlan })
    expect(validated.status).toBe(200)
    const body = (await validated.json()) as { ok: boolean; issues: unknown[] }
    expect(body.ok).toBe(false)
    expect(body.issues).toEqual([
      expect.objectContaining({
        path: 'steps[0]',
        line: 3,
        column: 5,
        message: expect.stringMatching(/cap of 50000 steps \(limit maxRunSteps\)/),
      }),
    ])
    const started = await post(`${url}/api/v1/runs`, { plan: freezingPlan })
    expect(started.status).toBe(400)
    const refused = (await started.json()) as { error: { code: string } }
    expect(refused.error.code).toBe('PLAN_INVALID')
  })

  it('answers /health while a long run runs, and a cancel ends that run promptly', async () => {
    const url = server!.url
    const id = await startHeavyRun(url)
    for (let probe = 0; probe < 5; probe++) await timeHealth(url)
    // The probes were made while the run ran (not after it had finished).
    expect((await getJson(`${url}/api/v1/runs/${id}`)).status).toBe('running')
    const cancelled = await post(`${url}/api/v1/runs/${id}/cancel`, undefined, endsWithinMs)
    expect(cancelled.status).toBe(200)
    expect(((await cancelled.json()) as { status: string }).status).toBe('cancelled')
  }, 120_000)

  it('exits promptly on SIGTERM during such a run, leaving the run interrupted', async () => {
    const running = server!
    const id = await startHeavyRun(running.url)
    const signalled = performance.now()
    running.child.kill('SIGTERM')
    const exit = await Promise.race([
      running.exited,
      new Promise<string>((resolve) => setTimeout(() => resolve('still running'), endsWithinMs)),
    ])
    expect(exit).toBe(0)
    expect(performance.now() - signalled).toBeLessThan(endsWithinMs)
    const { db } = await openDatabase({ dataDir: dataDir! })
    try {
      const run = await createRunsRepository(db).find(id)
      expect(run?.status).toBe('interrupted')
    } finally {
      await db.destroy()
    }
  }, 120_000)
})
