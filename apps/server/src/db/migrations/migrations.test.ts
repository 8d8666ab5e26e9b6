import { readdirSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import { afterEach, describe, expect, it } from 'vitest'
import type { Database } from '../database'
import { DatabaseFromNewerBatonError } from '../migrate'
import { migrate } from '../open-database'
import { migrations } from './index'

const opened: Kysely<Database>[] = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()))
})

async function freshDatabase(): Promise<Kysely<Database>> {
  const db = new Kysely<Database>({ dialect: new PGliteDialect(await PGlite.create()) })
  opened.push(db)
  return db
}

async function tableNames(db: Kysely<Database>): Promise<string[]> {
  return (await db.introspection.getTables()).map((table) => table.name)
}

describe('migrations', () => {
  it('lists every migration file once, in the order of its number, under its file name', () => {
    const files = readdirSync(new URL('.', import.meta.url))
      .filter((name) => /^\d{4}-.+\.ts$/.test(name) && !name.endsWith('.test.ts'))
      .map((name) => name.replace(/\.ts$/, ''))
      .sort()
    expect(Object.keys(migrations)).toEqual(files)
    const numbers = files.map((name) => Number(name.slice(0, 4)))
    expect(new Set(numbers).size).toBe(numbers.length)
  })

  it('lists the A2A task table', () => {
    expect(Object.keys(migrations)).toContain('0002-a2a-tasks')
  })

  it('creates the A2A task table on a fresh database', async () => {
    const db = await freshDatabase()
    await migrate(db)
    expect(await tableNames(db)).toContain('a2a_tasks')
  })

  it('refuses a database a newer Baton migrated, naming the migration, and runs nothing', async () => {
    const db = await freshDatabase()
    // What a newer Baton leaves: every migration of this one but the last, and one of its own.
    const names = Object.keys(migrations)
    const last = names.at(-1)!
    const { [last]: _pending, ...allButLast } = migrations
    const { error } = await new Migrator({
      db,
      provider: {
        getMigrations: async () => ({
          ...allButLast,
          '9999-from-a-newer-baton': { up: async () => {} },
        }),
      },
      allowUnorderedMigrations: true,
    }).migrateToLatest()
    expect(error).toBeUndefined()
    const refused = await migrate(db, { location: '/srv/baton/pglite' }).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(DatabaseFromNewerBatonError)
    expect((refused as DatabaseFromNewerBatonError).code).toBe('DATABASE_FROM_NEWER_BATON')
    // Before: Kysely's own 'corrupted migrations: previously executed migration … is missing'.
    expect((refused as Error).message).toBe(
      'The database /srv/baton/pglite was brought up to date by a newer Baton: it has run migration 9999-from-a-newer-baton, which this one does not know. Start the newer Baton on it, or give this one another database (BATON_DATA_DIR or DATABASE_URL); a database is never migrated down.',
    )
    const ran = await sql<{ name: string }>`select name from kysely_migration`.execute(db)
    expect(ran.rows.map((row) => row.name)).not.toContain(last)
  })

  it('runs 0002 late on a database that already ran the migrations after it', async () => {
    const db = await freshDatabase()
    const { ['0002-a2a-tasks']: _late, ...before } = migrations
    const { error } = await new Migrator({
      db,
      provider: { getMigrations: async () => before },
    }).migrateToLatest()
    expect(error).toBeUndefined()
    expect(await tableNames(db)).not.toContain('a2a_tasks')

    await migrate(db)
    expect(await tableNames(db)).toContain('a2a_tasks')
    // With the column 0022 could not add before the table was there.
    const table = (await db.introspection.getTables()).find(({ name }) => name === 'a2a_tasks')
    expect(table?.columns.map(({ name }) => name)).toContain('started_by')
    const applied = await new Migrator({
      db,
      provider: { getMigrations: async () => migrations },
    }).getMigrations()
    expect(applied.every((migration) => migration.executedAt !== undefined)).toBe(true)
  })

  it('0009 moves each live agent’s A2A tasks under its registration, and no older ones', async () => {
    const db = await freshDatabase()
    const { ['0009-a2a-registration-tenants']: _later, ...before } = migrations
    await new Migrator({ db, provider: { getMigrations: async () => before } }).migrateToLatest()
    const task = (id: string, at: string) =>
      sql`insert into a2a_tasks (tenant, owner, id, context_id, status_last_updated)
          values ('payroll', 'baton', ${id}, 'c', ${Date.parse(at)})`.execute(db)
    const history = (wallet: string, change: string, at: string) =>
      sql`insert into agent_history (wallet, change, record, signer, at)
          values (${wallet}, ${change}, '{}', 's', ${at})`.execute(db)
    // The first "payroll" was registered, served a task, and was revoked; another took the id.
    await sql`insert into agents (wallet, id, creator, record, revoked_at)
              values ('0xOld', 'payroll', '0xA', '{}', now()), ('0xNew', 'payroll', '0xB', '{}', null)`.execute(
      db,
    )
    await history('0xOld', 'register', '2026-01-01T00:00:00Z')
    await task('old-task', '2026-01-02T00:00:00Z')
    await history('0xOld', 'revoke', '2026-01-03T00:00:00Z')
    await history('0xNew', 'register', '2026-01-04T00:00:00Z')
    await task('new-task', '2026-01-05T00:00:00Z')
    await migrate(db)
    const { rows } = await sql<{ id: string; tenant: string }>`
      select id, tenant from a2a_tasks order by id`.execute(db)
    const registration = await sql<{ id: number }>`
      select id from agent_history where wallet = '0xNew' and change = 'register'`.execute(db)
    expect(rows).toEqual([
      { id: 'new-task', tenant: `payroll#${registration.rows[0]?.id}` },
      { id: 'old-task', tenant: 'payroll' },
    ])
  })
})
