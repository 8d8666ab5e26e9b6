import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { runServerToExit } from '../__fixtures__/server-process'
import { canMountTmpfs, mountTmpfs, type Tmpfs } from '../__fixtures__/tmpfs'
import { openDatabase, pgliteFolderOf } from './open-database'

// A full or read-only file system is made by the test: a tmpfs (root, as CI runs here).
const mountable = await canMountTmpfs()
if (!mountable && process.env.CI === 'true') {
  throw new Error('mounting a tmpfs is required under CI=true (the tests run as root there)')
}
if (!mountable)
  console.warn(
    '[data folder tests] cannot mount a tmpfs here: skipping the full and read-only disks.',
  )

const disks: Tmpfs[] = []
const folders: string[] = []
afterAll(async () => {
  for (const disk of disks) await disk.unmount()
  for (const folder of folders) await rm(folder, { recursive: true, force: true })
})

/** The lines a failed start printed (the server's own, not Node's warnings). */
function linesOf(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '' && !/ExperimentalWarning|--trace-warnings/.test(line))
}

const environment = { BATON_SEED: 'false', PORT: '0' }

describe('a server that cannot use its data folder', () => {
  it.skipIf(!mountable)(
    'says in one line that the disk is full, names the folder, and exits 1',
    async () => {
      const disk = (await mountTmpfs({ sizeMb: 8 }))!
      disks.push(disk)
      await disk.fill()
      const dataDir = path.join(disk.dir, 'data')
      const { code, output } = await runServerToExit({ ...environment, BATON_DATA_DIR: dataDir })
      expect(code).toBe(1)
      const lines = linesOf(output)
      expect(lines, output).toHaveLength(1)
      expect(lines[0]).toContain(dataDir)
      expect(lines[0]).toMatch(/no space left/)
    },
    120_000,
  )

  it.skipIf(!mountable)(
    'says in one line that the folder is read-only, names it, and exits 1',
    async () => {
      const disk = (await mountTmpfs({ sizeMb: 8 }))!
      disks.push(disk)
      await disk.remount('ro')
      const dataDir = path.join(disk.dir, 'data')
      const { code, output } = await runServerToExit({ ...environment, BATON_DATA_DIR: dataDir })
      expect(code).toBe(1)
      const lines = linesOf(output)
      expect(lines, output).toHaveLength(1)
      expect(lines[0]).toContain(dataDir)
      expect(lines[0]).toMatch(/read-only/)
    },
    120_000,
  )

  it('says in one line that a part of the path is a file, names the folder, and exits 1', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'baton-not-a-dir-'))
    folders.push(folder)
    await writeFile(path.join(folder, 'file'), 'not a directory')
    const dataDir = path.join(folder, 'file', 'data')
    const { code, output } = await runServerToExit({ ...environment, BATON_DATA_DIR: dataDir })
    expect(code).toBe(1)
    const lines = linesOf(output)
    expect(lines, output).toHaveLength(1)
    expect(lines[0]).toContain(dataDir)
    expect(lines[0]).toMatch(/not a directory/)
  }, 120_000)

  it('says in one line that a newer Baton migrated its database, names both, exits 1, and keeps the data', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-newer-'))
    folders.push(dataDir)
    const { db } = await openDatabase({ dataDir })
    await sql`insert into kysely_migration (name, timestamp) values ('9999-from-a-newer-baton', '2027-01-01T00:00:00Z')`.execute(
      db,
    )
    await db.destroy()
    const { code, output } = await runServerToExit({ ...environment, BATON_DATA_DIR: dataDir })
    expect(code).toBe(1)
    const lines = linesOf(output)
    expect(lines, output).toEqual([
      `Baton server could not start: The database ${pgliteFolderOf(dataDir)} was brought up to date by a newer Baton: it has run migration 9999-from-a-newer-baton, which this one does not know. Start the newer Baton on it, or give this one another database (BATON_DATA_DIR or DATABASE_URL); a database is never migrated down.`,
    ])
    // Nothing was touched: the newer Baton's record is still there.
    const reopened = await openDatabase({ dataDir }).catch((error: unknown) => error)
    expect((reopened as Error).name).toBe('DatabaseFromNewerBatonError')
  }, 120_000)

  it('says which PostgreSQL refused it, without its password, and exits 1', async () => {
    // A port nothing listens on: taken by the OS, then given back.
    const probe = createServer()
    await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done))
    const { port } = probe.address() as { port: number }
    await new Promise((done) => probe.close(done))
    const { code, output } = await runServerToExit({
      ...environment,
      DATABASE_URL: `postgres://baton:s3cret-pw@127.0.0.1:${port}/baton`,
    })
    expect(code).toBe(1)
    expect(linesOf(output), output).toEqual([
      `Baton server could not start: The database is unavailable: the connection was refused (postgres://127.0.0.1:${port}/baton).`,
    ])
    expect(output).not.toContain('s3cret-pw')
  }, 120_000)
})
