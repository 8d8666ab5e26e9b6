import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openPglite } from './open-pglite'

describe('openPglite', () => {
  const folders: string[] = []
  afterAll(async () => {
    await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })))
  })

  it('creates a new folder, sizes its buffers for a small server, and keeps data across opens', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'baton-open-pglite-'))
    folders.push(folder)
    const first = await openPglite(folder)
    const settings = await first.query<{ setting: string; unit: string }>(
      "select setting, unit from pg_settings where name = 'shared_buffers'",
    )
    // 4096 pages of 8 kB: 32 MB, not PostgreSQL's default 128 MB.
    expect(settings.rows[0]).toEqual({ setting: '4096', unit: '8kB' })
    await first.query('create table kept (value text)')
    await first.query("insert into kept values ('still here')")
    await first.close()
    // initdb's locale and time zone are kept in the configuration Baton writes.
    expect(await readFile(path.join(folder, 'postgresql.conf'), 'utf8')).toContain(
      "timezone = 'Etc/GMT0'",
    )

    const second = await openPglite(folder)
    expect((await second.query('select value from kept')).rows).toEqual([{ value: 'still here' }])
    expect((await second.query('show timezone')).rows).toEqual([{ TimeZone: 'Etc/GMT0' }])
    await second.close()
  })
})
