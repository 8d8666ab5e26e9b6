import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Agent, type ModelRegistry } from '@baton/core'
import { createInstantLanguageModel } from '../instant'
import type { StartedServer } from './types'

/** The demo analyst the server seeds: registered, hosted, and reachable over A2A. */
export const SEEDED_AGENT = { id: 'analyst', wallet: '0x1111111111111111111111111111111111111111' }

const serverSource = fileURLToPath(new URL('../../../apps/server/src/', import.meta.url))

// Loaded by path at run time: the bench measures the server, it does not build against it,
// so a server being changed by someone else breaks these rows only.
async function load<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(path.join(serverSource, file)).href)) as T
}

type RunsPage = { runs: unknown[]; total: number }

type ServerApp = {
  baton: { models: ModelRegistry } & Record<string, unknown>
  listen(options: { port: number; host: string }): Promise<string>
  close(): Promise<unknown>
}

let seededSoFar = 0

/** Registers `count` agents through the server's repository (not signed requests: the row is about memory). */
async function seedAgents(app: ServerApp, count: number): Promise<number> {
  const agents = (
    app.baton.repositories as { agents: { insert(agent: object, signer: string): Promise<void> } }
  ).agents
  const creator = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
  const at = new Date().toISOString()
  for (let start = 0; start < count; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, () => {
        seededSoFar += 1
        const index = seededSoFar
        return agents.insert(
          Agent.parse({
            id: `seeded-${index}`,
            wallet: `0x${(0xb000000 + index).toString(16).padStart(40, '0')}`,
            creator,
            name: `Seeded ${index}`,
            description: 'An agent registered to measure what a directory of many costs.',
            type: 'worker',
            model: 'offline:default',
            createdAt: at,
            updatedAt: at,
          }),
          creator,
        )
      }),
    )
  }
  return seededSoFar
}

const unfinished = ['queued', 'running'] as const

/**
 * Waits (60 s at most) until no run is queued or running, then says how many runs there are,
 * how long they took to settle, and how many queries its own look-ups made (measured once
 * the server is idle), so that the count of the server's work can leave them out.
 */
async function settleRuns(
  app: ServerApp,
  counter: { read(): { queries: number } },
): Promise<{ runs: number; settleMs: number; ownQueries: number }> {
  const runs = (app.baton.repositories as { runs: { list(o: object): Promise<RunsPage> } }).runs
  const started = performance.now()
  let lookups = 0
  const count = async (status?: string) => {
    lookups += 1
    return (await runs.list({ limit: 1, offset: 0, ...(status ? { status } : {}) })).total
  }
  while (performance.now() - started < 60_000) {
    let left = 0
    for (const status of unfinished) left += await count(status)
    if (left === 0) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const settleMs = performance.now() - started
  const before = counter.read().queries
  const total = await count()
  const perLookup = counter.read().queries - before
  return { runs: total, settleMs, ownQueries: perLookup * lookups }
}

/**
 * The Baton server of apps/server, built in this process with `buildApp` on a throw-away
 * PGlite folder (or the PostgreSQL database `BATON_BENCH_DATABASE_URL` names), the demo
 * seeded, logs and rate limits off. Its model registry is told to
 * answer the seeded agents' `offline:` card models with the instant model (the server has
 * no option for extra providers).
 *
 * @example
 * const server = await startBatonServer() // GET {server.url}/agent/0x1111…, POST /a2a/analyst
 */
export async function startBatonServer(
  options: {
    /** Models by card reference, answered before the instant model (e.g. a long stream). */
    models?: Record<string, ReturnType<ModelRegistry['languageModel']>>
  } = {},
): Promise<StartedServer> {
  const { buildApp } = await load<{
    buildApp(options: { settings: unknown; logger: false }): Promise<ServerApp>
  }>('app.ts')
  const { readSettings } = await load<{ readSettings(env: Record<string, string>): unknown }>(
    'settings/index.ts',
  )
  const { seedDemo } = await load<{ seedDemo(services: unknown): Promise<unknown> }>(
    'seed/seed-demo.ts',
  )
  // The memory row seeds a folder a production server opens afterwards: that one is kept.
  const givenDataDir = process.env.BATON_BENCH_DATA_DIR
  const dataDir = givenDataDir ?? (await mkdtemp(path.join(tmpdir(), 'baton-bench-server-')))
  const settings = readSettings({
    PORT: '0',
    HOST: '127.0.0.1',
    BATON_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    BATON_RATE_LIMIT: '1000000000',
    BATON_SEED: 'false',
    // Runs at once, when the measurement chooses (the server's default otherwise).
    ...(process.env.BATON_WORKER_CONCURRENCY
      ? { BATON_WORKER_CONCURRENCY: process.env.BATON_WORKER_CONCURRENCY }
      : {}),
    // The PostgreSQL rows: a database of a throw-away cluster the measuring process started.
    ...(process.env.BATON_BENCH_DATABASE_URL
      ? { DATABASE_URL: process.env.BATON_BENCH_DATABASE_URL }
      : {}),
  })
  const app = await buildApp({ settings, logger: false })
  await seedDemo(app.baton)
  let model = 'offline:default (the server registry could not take the instant model)'
  try {
    const { models } = app.baton
    const resolve = models.languageModel.bind(models)
    const instant = createInstantLanguageModel()
    const extra = options.models ?? {}
    models.languageModel = (ref: string) =>
      extra[ref] ?? (ref.startsWith('offline:') ? instant : resolve(ref))
    model = 'instant (in place of the card model offline:default)'
  } catch {
    // A frozen registry: the offline model is deterministic and local too; the row says so.
  }
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return {
    url,
    paths: {
      agent: `/agent/${SEEDED_AGENT.wallet}`,
      a2a: `/a2a/${SEEDED_AGENT.id}`,
      agents: '/api/v1/agents',
      runs: '/api/v1/runs',
    },
    model,
    dataDir,
    settle: (counter) => settleRuns(app, counter),
    seedAgents: (count) => seedAgents(app, count),
    async close() {
      await app.close()
      if (!givenDataDir) await rm(dataDir, { recursive: true, force: true })
    },
  }
}
