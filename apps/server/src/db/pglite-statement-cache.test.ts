import { PGlite, types } from '@electric-sql/pglite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type PgliteClient, withStatementCache } from './pglite-statement-cache'

const prepared = async (pglite: PGlite) =>
  (
    await pglite.query<{ statement: string }>(
      'select statement from pg_prepared_statements order by statement',
    )
  ).rows.map((row) => row.statement)

describe('the embedded database’s statement cache', () => {
  let pglite: PGlite
  let client: PgliteClient
  beforeEach(async () => {
    pglite = await PGlite.create()
    await pglite.exec(`create table notes (
      id serial primary key, n integer, doc jsonb, at timestamptz, note text unique)`)
    client = withStatementCache(pglite)
  })
  afterEach(() => pglite.close())

  it('prepares a statement asked for a second time, and answers as PGlite’s own query does', async () => {
    const insert = 'insert into notes (n, doc, at, note) values ($1, $2, $3, $4) returning id'
    const at = new Date('2026-12-05T10:00:00.000Z')
    await client.query(insert, [1, { a: [1, 'two'] }, at, 'first'])
    expect(await prepared(pglite)).toEqual([])
    await client.query(insert, [2, '"a string"', at, null])
    await client.query(insert, [3, null, null, 'third'])
    expect(await prepared(pglite)).toEqual([insert])

    const select = 'select * from notes where n >= $1 order by id'
    const own = await pglite.query(select, [1])
    for (let time = 0; time < 3; time += 1) {
      const answer = await client.query(select, [1])
      expect(answer.rows).toEqual(own.rows)
      expect(answer.fields).toEqual(own.fields)
    }
    expect(own.rows).toEqual([
      { id: 1, n: 1, doc: { a: [1, 'two'] }, at, note: 'first' },
      { id: 2, n: 2, doc: 'a string', at, note: null },
      { id: 3, n: 3, doc: null, at: null, note: 'third' },
    ])
    expect(await prepared(pglite)).toEqual([insert, select])
    // A write answers how many rows it changed, as from `query`.
    const update = 'update notes set n = n + 1 where n > $1'
    await client.query(update, [0])
    expect((await client.query(update, [1])).affectedRows).toBe(3)
  })

  it('fails a prepared statement with the database’s own error, and goes on serving', async () => {
    const insert = 'insert into notes (note) values ($1)'
    await client.query(insert, ['once'])
    await client.query(insert, ['twice'])
    await expect(client.query(insert, ['once'])).rejects.toMatchObject({ code: '23505' })
    // Inside a transaction: the failed statement aborts it, and its rollback undoes it whole.
    await client.query('begin')
    await client.query(insert, ['inside'])
    await expect(client.query(insert, ['twice'])).rejects.toMatchObject({ code: '23505' })
    await expect(client.query(insert, ['after'])).rejects.toMatchObject({ code: '25P02' })
    await client.query('rollback')
    await client.query(insert, ['third'])
    const notes = await client.query<{ note: string }>('select note from notes order by id')
    expect(notes.rows.map((row) => row.note)).toEqual(['once', 'twice', 'third'])
  })

  it('keeps at most `size` statements prepared, the most recently used', async () => {
    client = withStatementCache(pglite, { size: 2 })
    const texts = Array.from({ length: 5 }, (_, index) => `select $1::integer + ${index} as sum`)
    for (const [index, text] of texts.entries()) {
      for (let time = 0; time < 3; time += 1) {
        expect((await client.query<{ sum: number }>(text, [10])).rows).toEqual([
          { sum: 10 + index },
        ])
      }
    }
    expect(await prepared(pglite)).toEqual([texts[3], texts[4]])
    // An evicted text is prepared again once asked for twice more.
    await client.query(texts[0]!, [1])
    await client.query(texts[0]!, [1])
    expect((await prepared(pglite)).length).toBeLessThanOrEqual(2)
    expect(await prepared(pglite)).toContain(texts[0])
  })

  it('leaves statements that plan nothing unnamed', async () => {
    for (let time = 0; time < 3; time += 1) {
      await client.query('begin')
      await client.query("set local application_name = 'cache'")
      await client.query('commit')
    }
    expect(await prepared(pglite)).toEqual([])
  })

  it('reads every column type as PGlite’s own query does: arrays, numbers, dates and parsers of its own', async () => {
    const own = await PGlite.create({
      parsers: { [types.TEXT]: (value: string) => `«${value}»` },
    })
    try {
      const cached = withStatementCache(own)
      const select = `select $1::int as i, $1::bigint * 1000000000000 as big, 2.5::numeric as num,
        true as yes, array[1, 2, $1::int] as ints, array['a', 'b'] as texts, 'note'::text as note,
        'x'::varchar as name, '2026-12-05'::date as day, '{"a": [1]}'::jsonb as doc,
        '\\x0102'::bytea as bytes, null::int as nothing`
      const expected = await own.query(select, [7])
      for (let time = 0; time < 3; time += 1) {
        const answer = await cached.query(select, [7])
        expect(answer.rows).toEqual(expected.rows)
        expect(answer.fields).toEqual(expected.fields)
      }
      expect(expected.rows[0]).toMatchObject({
        i: 7,
        ints: [1, 2, 7],
        note: '«note»',
        doc: { a: [1] },
      })
    } finally {
      await own.close()
    }
  })

  it('runs a transaction’s own statements, and a rollback undoes what it wrote', async () => {
    const insert = 'insert into notes (note) values ($1)'
    await client.query('begin')
    await client.query(insert, ['kept'])
    expect((await client.query('commit')).rows).toEqual([])
    await client.query('begin')
    await client.query(insert, ['dropped'])
    await client.query('savepoint inner_one')
    await client.query(insert, ['dropped too'])
    await client.query('release savepoint inner_one')
    await client.query('rollback')
    const notes = await client.query<{ note: string }>('select note from notes order by id')
    expect(notes.rows.map((row) => row.note)).toEqual(['kept'])
    // A utility statement the database refuses fails with its own error.
    await expect(client.query('rollback to savepoint nowhere')).rejects.toMatchObject({
      code: '25P01',
    })
    expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }])
  })
})
