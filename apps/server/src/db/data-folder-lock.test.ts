import { spawnSync } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runServerToExit as runEntryToExit } from '@baton/testing/server-process'
import { afterAll, describe, expect, it } from 'vitest'
import { runServerToExit, startServerProcess } from '../__fixtures__/server-process'
import { runKeysCommand } from '../cli/keys'
import { DataFolderInUseError, LOCK_FILE, lockDataFolder } from './data-folder-lock'
import { pgliteFolderOf } from './open-database'

const made: string[] = []
afterAll(async () => {
  for (const folder of made) await rm(folder, { recursive: true, force: true })
})
const folder = async (name: string) => {
  const created = await mkdtemp(path.join(tmpdir(), `baton-lock-${name}-`))
  made.push(created)
  return created
}

/** The pid of a process that has ended: no process has it now. */
function deadPid(): number {
  const { stdout } = spawnSync(
    process.execPath,
    ['-e', 'process.stdout.write(String(process.pid))'],
    {
      encoding: 'utf8',
    },
  )
  return Number(stdout)
}

const holdEntry = fileURLToPath(new URL('./__fixtures__/hold-data-folder.ts', import.meta.url))
const environment = { BATON_SEED: 'false' }

/** Posts a message to the analyst on `url`; the answer's status. */
async function post(url: string, content: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from: { agentId: 'lock-test' }, to: { agentId: 'analyst' }, content }),
  })
  return response.status
}

const conversationsOn = async (url: string) =>
  (
    (await (await fetch(`${url}/api/v1/conversations?limit=100`)).json()) as {
      conversations: unknown[]
    }
  ).conversations.length

describe('one process per embedded database', () => {
  it('refuses a second server on a data folder in use, naming the first, which loses nothing', async () => {
    const dataDir = await folder('second')
    const first = await startServerProcess({
      ...environment,
      BATON_SEED: 'true',
      BATON_DATA_DIR: dataDir,
    })
    try {
      for (let index = 0; index < 5; index++)
        expect(await post(first.url, `one ${index}`)).toBe(202)
      // Before: the second started on the same folder, answered 202s of its own, and whichever
      // closed last overwrote the other's writes.
      const second = await runServerToExit({ ...environment, PORT: '0', BATON_DATA_DIR: dataDir })
      expect(second.code, second.output).toBe(1)
      const line = second.output.split('\n').find((text) => text.startsWith('Baton server'))
      expect(line).toContain(
        `Baton server could not start: The data folder ${pgliteFolderOf(dataDir)} is in use by a Baton server (pid ${first.child.pid} on `,
      )
      expect(line).toMatch(
        /would lose each other's writes: stop it first, or use another BATON_DATA_DIR/,
      )
      // The first serves on, its lock its own.
      for (let index = 5; index < 10; index++)
        expect(await post(first.url, `one ${index}`)).toBe(202)
      expect(await conversationsOn(first.url)).toBe(10)
    } finally {
      await first.stop()
    }
    // Stopped, it gives the folder up; the next start has every acknowledged write.
    expect(await readdir(pgliteFolderOf(dataDir))).not.toContain(LOCK_FILE)
    const next = await startServerProcess({ ...environment, BATON_DATA_DIR: dataDir })
    try {
      expect(await conversationsOn(next.url)).toBe(10)
    } finally {
      await next.stop()
    }
  }, 240_000)

  it('takes over the lock of a server that was killed, and has its data', async () => {
    const dataDir = await folder('killed')
    const killed = await startServerProcess({
      ...environment,
      BATON_SEED: 'true',
      BATON_DATA_DIR: dataDir,
    })
    expect(await post(killed.url, 'before the kill')).toBe(202)
    killed.child.kill('SIGKILL')
    await new Promise((resolve) => killed.child.once('exit', resolve))
    // Its lock is still there, naming a pid nobody has.
    const left = JSON.parse(await readFile(path.join(pgliteFolderOf(dataDir), LOCK_FILE), 'utf8'))
    expect(left.pid).toBe(killed.child.pid)
    const next = await startServerProcess({ ...environment, BATON_DATA_DIR: dataDir })
    try {
      expect(await conversationsOn(next.url)).toBe(1)
      const now = JSON.parse(await readFile(path.join(pgliteFolderOf(dataDir), LOCK_FILE), 'utf8'))
      expect(now.pid).toBe(next.child.pid)
    } finally {
      await next.stop()
    }
  }, 240_000)

  it('keeps the keys command off a folder a server runs on, and says to use HTTP', async () => {
    const dataDir = await folder('keys')
    const server = await startServerProcess({ ...environment, BATON_DATA_DIR: dataDir })
    const lines: string[] = []
    const run = () =>
      runKeysCommand(
        ['create', '--name', 'ci', '--scopes', 'read'],
        {
          BATON_DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
        },
        (line) => lines.push(line),
      )
    try {
      expect(await run()).toBe(1)
      expect(lines.join('\n')).toMatch(
        new RegExp(`is in use by a Baton server \\(pid ${server.child.pid} [^]*POST /api/v1/keys`),
      )
    } finally {
      await server.stop()
    }
    // Once the server has stopped, the command has the folder (and gives it back).
    lines.length = 0
    expect(await run()).toBe(0)
    expect(lines.some((line) => line.startsWith('baton_'))).toBe(true)
    expect(await readdir(pgliteFolderOf(dataDir))).not.toContain(LOCK_FILE)
  }, 240_000)
})

describe('lockDataFolder', () => {
  it('gives the folder to one of several processes starting at once', async () => {
    const shared = await folder('race')
    const runs = await Promise.all(
      Array.from({ length: 4 }, () =>
        runEntryToExit({ entry: holdEntry, args: [shared, '3000'], environment: {} }),
      ),
    )
    const said = runs.map((run) => run.output.trim().split('\n').at(-1) ?? '')
    expect(runs.map((run) => run.code)).toEqual([0, 0, 0, 0])
    expect(
      said.filter((line) => line === 'held'),
      said.join('\n'),
    ).toHaveLength(1)
    expect(said.filter((line) => line.startsWith('refused: The data folder'))).toHaveLength(3)
    expect(await readdir(shared)).toEqual([])
  }, 120_000)

  it('refuses a second lock in the same process, and lends the folder again once released', async () => {
    const here = await folder('same')
    const lock = await lockDataFolder(here, 'a Baton server')
    const second = await lockDataFolder(here, 'a Baton server').catch((error: unknown) => error)
    expect(second).toBeInstanceOf(DataFolderInUseError)
    expect((second as DataFolderInUseError).details).toMatchObject({ pid: process.pid })
    await lock.release()
    expect(await readdir(here)).toEqual([])
    const again = await lockDataFolder(here, 'a Baton server')
    await again.release()
    // Released twice: nothing more happens.
    await again.release()
  })

  it('takes over a lock left by a pid nobody has, by this process’s parent, or one not readable', async () => {
    const here = await folder('stale')
    const file = path.join(here, LOCK_FILE)
    const leftBy = (pid: number) =>
      JSON.stringify({
        pid,
        host: 'h',
        since: '2026-01-01T00:00:00Z',
        what: 'a Baton server',
        id: 'x',
      })
    for (const text of [leftBy(deadPid()), leftBy(process.ppid), leftBy(process.pid), '{"pi']) {
      await writeFile(file, text)
      const lock = await lockDataFolder(here, 'a Baton server')
      expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ pid: process.pid })
      await lock.release()
    }
    expect(await readdir(here)).toEqual([])
  })

  it('refuses a lock a live process of this machine holds', async () => {
    const here = await folder('live')
    // Another process of this machine, holding the folder for a while.
    const holder = runEntryToExit({ entry: holdEntry, args: [here, '4000'], environment: {} })
    const file = path.join(here, LOCK_FILE)
    const deadline = Date.now() + 30_000
    while (!(await readdir(here)).includes(LOCK_FILE) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    const held = JSON.parse(await readFile(file, 'utf8'))
    const refused = await lockDataFolder(here, 'a Baton server').catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(DataFolderInUseError)
    expect((refused as Error).message).toContain(`in use by a test process (pid ${held.pid} on `)
    expect((await holder).output).toContain('held')
  }, 60_000)
})
