import { randomUUID } from 'node:crypto'
import { freePort } from '@baton/testing/ports'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backends } from '../__fixtures__/backends'
import { openTestDatabase } from '../__fixtures__/test-database'
import type { Database } from './database'
import { DatabaseUnavailableError } from './database-errors'
import { createGroupCommit, type WriteChannel, type WriteExecutor } from './group-commit'
import type { OpenedDatabase } from './open-database'
import { withDatabaseFaults } from './with-database-faults'

/** Claims conversations (a primary key: a second claim of one breaks a constraint), counting turns. */
function ownerClaims(options: { oneStatement: boolean }) {
  const turns: string[][] = []
  const insert = (executor: WriteExecutor, ids: string[]) =>
    executor
      .insertInto('conversation_owners')
      .values(ids.map((id) => ({ correlation_id: id, owner: 'test' })))
  const channel: WriteChannel<string> = {
    name: 'owner claims',
    async store(executor, ids) {
      turns.push(ids)
      await insert(executor, ids).execute()
    },
    ...(options.oneStatement
      ? {
          statement: (db: Kysely<Database>, ids: string[]) => {
            turns.push(ids)
            return insert(db, ids)
          },
        }
      : {}),
  }
  return { channel, turns }
}

const settledYet = (promise: Promise<unknown>) => {
  let settled = false
  void promise.then(
    () => {
      settled = true
    },
    () => {
      settled = true
    },
  )
  return () => settled
}

describe.each(backends)('createGroupCommit on %s', (backend) => {
  let opened: OpenedDatabase
  beforeAll(async () => {
    opened = await openTestDatabase(backend)
  })
  afterAll(() => opened.db.destroy())

  const stored = async (ids: string[]) =>
    (
      await opened.db
        .selectFrom('conversation_owners')
        .select('correlation_id')
        .where('correlation_id', 'in', ids)
        .execute()
    )
      .map((row) => row.correlation_id)
      .sort()

  it.each([true, false])(
    'stores the writes of concurrent callers in one turn (one statement: %s), each resolved once committed',
    async (oneStatement) => {
      const writer = createGroupCommit(opened.db)
      const { channel, turns } = ownerClaims({ oneStatement })
      const ids = Array.from({ length: 20 }, () => randomUUID())
      // A transaction held open by a write of its own: the others of its turn wait with it.
      let open!: () => void
      const gate = new Promise<void>((resolve) => {
        open = resolve
      })
      const held = writer.transact(async (transaction) => {
        await transaction
          .insertInto('conversation_owners')
          .values({ correlation_id: ids[0]!, owner: 'test' })
          .execute()
        await gate
        return 'held'
      })
      const writes = ids.slice(1).map((id) => writer.write(channel, id))
      const resolved = writes.map(settledYet)
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(resolved.some((settled) => settled())).toBe(false)
      open()
      expect(await held).toBe('held')
      await Promise.all(writes)
      expect(turns).toEqual([ids.slice(1)])
      expect(await stored(ids)).toEqual([...ids].sort())

      // Without a transaction of its own in the turn, the channel's one statement suffices.
      const more = Array.from({ length: 5 }, () => randomUUID())
      await Promise.all(more.map((id) => writer.write(channel, id)))
      expect(turns.at(-1)).toEqual(more)
      expect(await stored(more)).toEqual([...more].sort())
    },
  )

  it('sends the channels of one turn as one statement, every one of them stored', async () => {
    const writer = createGroupCommit(opened.db)
    const owners = ownerClaims({ oneStatement: true })
    const scope = randomUUID()
    const memories: WriteChannel<string> = {
      name: 'memories',
      store: async () => {
        throw new Error('one statement was expected')
      },
      statement: (db, texts) =>
        db
          .insertInto('memory_entries')
          .values(texts.map((text) => ({ scope, entry: JSON.stringify({ text }) }))),
    }
    const ids = [randomUUID(), randomUUID()]
    await Promise.all([
      writer.write(owners.channel, ids[0]!),
      writer.write(memories, 'first'),
      writer.write(owners.channel, ids[1]!),
      writer.write(memories, 'second'),
    ])
    expect(owners.turns).toEqual([ids])
    expect(await stored(ids)).toEqual([...ids].sort())
    const entries = await opened.db
      .selectFrom('memory_entries')
      .select('entry')
      .where('scope', '=', scope)
      .orderBy('id')
      .execute()
    expect(entries.map((row) => (row.entry as unknown as { text: string }).text)).toEqual([
      'first',
      'second',
    ])
  })

  it.each([true, false])(
    'fails only the write that breaks a constraint, and stores the others of its turn (one statement: %s)',
    async (oneStatement) => {
      const writer = createGroupCommit(opened.db)
      const { channel, turns } = ownerClaims({ oneStatement })
      const taken = randomUUID()
      await writer.write(channel, taken)
      const ids = [randomUUID(), taken, randomUUID()]
      const results = await Promise.allSettled(ids.map((id) => writer.write(channel, id)))
      expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
      // The turn of three, rolled back, then each alone.
      expect(turns.slice(1)).toEqual([ids, [ids[0]], [ids[1]], [ids[2]]])
      expect(await stored([ids[0]!, ids[2]!])).toEqual([ids[0], ids[2]].sort())
    },
  )
})

describe('createGroupCommit on a database that is not there', () => {
  let db: Kysely<Database>
  beforeAll(async () => {
    // A PostgreSQL address nothing listens on: a stopped server.
    const pool = new pg.Pool({
      connectionString: `postgres://baton@127.0.0.1:${await freePort()}/baton`,
      connectionTimeoutMillis: 2_000,
    })
    db = new Kysely<Database>({
      dialect: withDatabaseFaults(new PostgresDialect({ pool }), 'the stopped server'),
    })
  })
  afterAll(() => db.destroy())

  it.each([true, false])(
    'fails every write of the turn with the typed error, acknowledging none (one statement: %s)',
    async (oneStatement) => {
      const writer = createGroupCommit(db)
      const { channel, turns } = ownerClaims({ oneStatement })
      const results = await Promise.allSettled(
        Array.from({ length: 3 }, () => writer.write(channel, randomUUID())),
      )
      for (const result of results) {
        expect(result.status).toBe('rejected')
        expect((result as PromiseRejectedResult).reason).toBeInstanceOf(DatabaseUnavailableError)
      }
      // Not tried again one by one: nothing of it could be stored.
      expect(turns.length).toBeLessThanOrEqual(1)
    },
  )
})
