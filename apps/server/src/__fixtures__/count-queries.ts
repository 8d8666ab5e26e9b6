import type { Kysely } from 'kysely'
import type { Database } from '../db/database'

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
