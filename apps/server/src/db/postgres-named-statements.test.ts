import { createDatabase } from '@baton/testing/postgres'
import { Kysely, PostgresDialect, sql } from 'kysely'
import pg from 'pg'
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest'
import { withNamedStatements } from './postgres-named-statements'

// biome-ignore lint/suspicious/noExplicitAny: a table of the test's own
type Any = any

describe.skipIf(!inject('postgresUrl'))(
  'PostgreSQL connections that keep statements prepared',
  () => {
    let pool: pg.Pool
    let db: Kysely<Any>
    const open = async (size?: number) => {
      // One connection: its session's prepared statements are the ones it kept.
      pool = new pg.Pool({ connectionString: await createDatabase(inject('postgresUrl')), max: 1 })
      db = new Kysely<Any>({
        dialect: new PostgresDialect({
          pool: withNamedStatements(pool, size === undefined ? {} : { size }),
        }),
      })
      await sql`create table notes (id serial primary key, doc jsonb, note text unique)`.execute(db)
    }
    const prepared = async () =>
      // Its own text is prepared too, from its second call on: left out.
      (
        await sql<{ statement: string }>`select statement from pg_prepared_statements
        where statement not like '%pg_prepared_statements%' order by statement`.execute(db)
      ).rows.map((row) => row.statement)
    beforeEach(() => open())
    afterEach(() => db.destroy())

    it('prepares a statement asked for a second time, and answers it as before', async () => {
      const insert = (note: string) =>
        db
          .insertInto('notes')
          .values({ doc: JSON.stringify({ note }), note })
          .returning('id')
      expect(await insert('one').execute()).toEqual([{ id: 1 }])
      expect(await prepared()).toEqual([])
      expect(await insert('two').execute()).toEqual([{ id: 2 }])
      expect(await insert('three').execute()).toEqual([{ id: 3 }])
      const text = insert('x').compile().sql
      expect(await prepared()).toEqual([text])
      const rows = await db.selectFrom('notes').select(['doc', 'note']).orderBy('id').execute()
      expect(rows).toEqual(['one', 'two', 'three'].map((note) => ({ doc: { note }, note })))
    })

    it('fails a prepared statement with the database’s own error, and goes on serving', async () => {
      const insert = (note: string) => db.insertInto('notes').values({ note }).execute()
      await insert('once')
      await insert('twice')
      await expect(insert('once')).rejects.toMatchObject({ code: '23505' })
      await expect(
        db.transaction().execute(async (transaction) => {
          await transaction.insertInto('notes').values({ note: 'inside' }).execute()
          await transaction.insertInto('notes').values({ note: 'twice' }).execute()
        }),
      ).rejects.toMatchObject({ code: '23505' })
      await insert('third')
      const notes = await db.selectFrom('notes').select('note').orderBy('id').execute()
      expect(notes.map((row) => row.note)).toEqual(['once', 'twice', 'third'])
    })

    it('names at most `size` texts; the others stay unnamed, and answer all the same', async () => {
      await db.destroy()
      await open(2)
      for (let index = 0; index < 5; index += 1) {
        for (let time = 0; time < 3; time += 1) {
          const { rows } = await sql<{
            sum: number
          }>`select ${10}::integer + ${sql.lit(index)} as sum`.execute(db)
          expect(rows).toEqual([{ sum: 10 + index }])
        }
      }
      expect(await prepared()).toHaveLength(2)
    })
  },
)
