import { PGlite } from '@electric-sql/pglite'
import { Kysely, Migrator } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import { afterEach, describe, expect, it } from 'vitest'
import type { Database } from '../database'
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
  it('lists the A2A task table', () => {
    expect(Object.keys(migrations)).toContain('0002-a2a-tasks')
  })

  it('creates the A2A task table on a fresh database', async () => {
    const db = await freshDatabase()
    await migrate(db)
    expect(await tableNames(db)).toContain('a2a_tasks')
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
    const applied = await new Migrator({
      db,
      provider: { getMigrations: async () => migrations },
    }).getMigrations()
    expect(applied.every((migration) => migration.executedAt !== undefined)).toBe(true)
  })
})
