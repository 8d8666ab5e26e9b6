import type { Kysely } from 'kysely'
import { afterAll, beforeAll } from 'vitest'
import type { Database } from '../db/database'
import type { OpenedDatabase } from '../db/open-database'
import { openTestDatabase } from './test-database'

/**
 * `db` with every query sent through it counted: what a test asserts "makes no query" with.
 *
 * @example
 * const counted = countQueries(opened.db)
 * await createSwarmsRepository(counted.db).list()
 * counted.queries() // 1
 */
export function countQueries(db: Kysely<Database>): { db: Kysely<Database>; queries(): number } {
  let queries = 0
  const counted = db.withPlugin({
    transformQuery: (args) => {
      queries += 1
      return args.node
    },
    transformResult: async (args) => args.result,
  })
  return { db: counted, queries: () => queries }
}

/**
 * A PGlite test database for one test file (opened before its tests, closed after), and its
 * queries counted (`counter.db`).
 *
 * @example
 * const database = countedTestDatabase()
 * it('reads once', async () => { ...; expect(database.counter.queries()).toBe(1) })
 */
export function countedTestDatabase(): {
  opened: OpenedDatabase
  counter: ReturnType<typeof countQueries>
} {
  const database = {} as { opened: OpenedDatabase; counter: ReturnType<typeof countQueries> }
  beforeAll(async () => {
    database.opened = await openTestDatabase('pglite')
    database.counter = countQueries(database.opened.db)
  })
  afterAll(async () => {
    await database.opened.db.destroy()
  })
  return database
}
