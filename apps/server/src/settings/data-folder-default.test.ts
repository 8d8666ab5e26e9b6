import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { findPostgresBinaries, type PostgresCluster, startPostgres } from '@baton/testing/postgres'
import { afterAll, describe, expect, it } from 'vitest'
import { runServerToExit, startServerProcess } from '../__fixtures__/server-process'

const bin = findPostgresBinaries()
if (!bin && process.env.CI === 'true') throw new Error('PostgreSQL is required under CI=true')
const serverFolder = fileURLToPath(new URL('../..', import.meta.url))
const made: string[] = []
let cluster: PostgresCluster | undefined

const folder = async (name: string) => {
  const created = await mkdtemp(path.join(tmpdir(), `baton-${name}-`))
  made.push(created)
  return created
}
// No BATON_DATA_DIR: the server chooses. HOME is the test's, so the default lands in a
// folder the test owns (and removes).
const environmentWith = (home: string, more: Record<string, string> = {}) => ({
  PORT: '0',
  HOME: home,
  BATON_DATA_DIR: '',
  BATON_RUNTIME_KEY: '',
  BATON_SEED: 'false',
  ...more,
})
afterAll(async () => {
  await cluster?.stop()
  for (const created of made) await rm(created, { recursive: true, force: true })
})

describe('the default data folder', () => {
  it('is one place whatever folder the server starts in (not apps/server/.baton)', async () => {
    const home = await folder('home')
    const hadLocal = existsSync(path.join(serverFolder, '.baton'))
    const elsewhere = await folder('cwd')
    for (const cwd of [serverFolder, elsewhere]) {
      const server = await startServerProcess(environmentWith(home), { cwd })
      expect(server.output()).toContain(`data folder: ${path.join(home, '.baton')}`)
      await server.stop()
    }
    expect(await readdir(path.join(home, '.baton'))).toEqual(
      expect.arrayContaining(['pglite', 'runtime-key']),
    )
    expect(existsSync(path.join(serverFolder, '.baton'))).toBe(hadLocal)
    expect(await readdir(elsewhere)).toEqual([])
  }, 240_000)
})

describe('BATON_DATA_DIR=memory://', () => {
  it('keeps the embedded database in memory: nothing on disk where it starts, nothing after a restart', async () => {
    const home = await folder('home')
    const cwd = await folder('cwd')
    const environment = environmentWith(home, { BATON_DATA_DIR: 'memory://', BATON_SEED: 'true' })
    let server = await startServerProcess(environment, { cwd })
    expect(server.output()).toContain('database: PGlite in memory')
    const runtime = (await (await fetch(`${server.url}/api/v1/runtime`)).json()) as {
      address: string
      source: string
    }
    expect(runtime.source).toBe('memory')
    const agents = async () =>
      ((await (await fetch(`${server.url}/api/v1/agents`)).json()) as { agents: unknown[] }).agents
    expect((await agents()).length).toBeGreaterThan(0)
    await server.stop()
    // Not a folder named `memory:` beside where it started, nor anything in the home folder.
    expect(await readdir(cwd)).toEqual([])
    expect(await readdir(home)).toEqual([])
    // A new process starts from nothing: unseeded, it has no agent.
    server = await startServerProcess({ ...environment, BATON_SEED: 'false' }, { cwd })
    expect(await agents()).toEqual([])
    await server.stop()
    expect(await readdir(cwd)).toEqual([])
  }, 240_000)

  it('refuses another scheme, naming the setting, and starts nothing', async () => {
    const cwd = await folder('cwd')
    const { code, output } = await runServerToExit(
      { PORT: '0', BATON_SEED: 'false', BATON_DATA_DIR: 'file:///var/baton' },
      { cwd },
    )
    expect(code).toBe(1)
    expect(output).toMatch(
      /BATON_DATA_DIR: must be a folder, or memory:\/\/ for a database kept in memory only/,
    )
    expect(await readdir(cwd)).toEqual([])
  }, 120_000)
})

describe.skipIf(!bin)('a server on PostgreSQL (DATABASE_URL)', () => {
  it('keeps nothing on local disk: its runtime key lives in the database, the same after a restart', async () => {
    cluster = await startPostgres(bin!)
    const databaseUrl = await cluster.createDatabase()
    const home = await folder('home')
    const cwd = await folder('cwd')
    const addresses: string[] = []
    for (let start = 0; start < 2; start += 1) {
      const server = await startServerProcess(
        environmentWith(home, { DATABASE_URL: databaseUrl }),
        { cwd },
      )
      const runtime = (await (await fetch(`${server.url}/api/v1/runtime`)).json()) as {
        address: string
        source: string
      }
      expect(runtime.source).toBe('database')
      addresses.push(runtime.address)
      await server.stop()
    }
    expect(addresses[1]).toBe(addresses[0])
    expect(await readdir(home)).toEqual([])
    expect(await readdir(cwd)).toEqual([])
  }, 240_000)
})
