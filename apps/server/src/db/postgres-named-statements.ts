import type { PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'

export type NamedStatementsOptions = {
  /** Texts named at most (default 500); past it, a new text stays unnamed. */
  size?: number
}

// Only statements that plan: a utility statement (`begin`, `commit`, `set`) has nothing to keep.
const planned = /^\s*(select|insert|update|delete|with)\s/i

/**
 * A node-postgres pool for Kysely whose connections keep the statements the server repeats
 * prepared: a text asked for a second time is sent as a named statement, which node-postgres
 * parses once per connection and then only binds and executes (PostgreSQL plans it once it
 * has seen that a generic plan does as well). The embedded database's counterpart is
 * `withStatementCache`.
 *
 * Named statements stay in their connection until it closes, so at most `size` texts are
 * named; the server's repeated texts are far fewer. Behind a pooler that does not keep a
 * connection's prepared statements (PgBouncer in transaction mode before 1.21), turn it off
 * (`BATON_DATABASE_PREPARE=false`).
 *
 * @example
 * new PostgresDialect({ pool: withNamedStatements(new pg.Pool({ connectionString })) })
 */
export function withNamedStatements(
  pool: pg.Pool,
  options: NamedStatementsOptions = {},
): PostgresPool {
  const size = options.size ?? 500
  const names = new Map<string, string>()
  const seen = new Set<string>()
  const nameOf = (text: string): string | undefined => {
    const name = names.get(text)
    if (name || !planned.test(text)) return name
    if (!seen.has(text)) {
      // Texts seen once are forgotten in bulk: a name is given only to one asked for again soon.
      if (seen.size >= 4 * size) seen.clear()
      seen.add(text)
      return undefined
    }
    if (names.size >= size) return undefined
    seen.delete(text)
    const given = `baton_${names.size + 1}`
    names.set(text, given)
    return given
  }
  // Kysely keeps its connection by the client `connect` answers: one wrapper per client.
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>()
  return {
    async connect() {
      const client = await pool.connect()
      let own = wrapped.get(client)
      if (!own) {
        own = {
          // Kysely's two forms: a text and its parameters, or a cursor (passed as it is).
          query: ((text: string | pg.Submittable, parameters?: readonly unknown[]) => {
            if (typeof text !== 'string') return client.query(text)
            const name = nameOf(text)
            const values = parameters ? [...parameters] : []
            return name ? client.query({ name, text, values }) : client.query(text, values)
          }) as unknown as PostgresPoolClient['query'],
          release: (destroy?: boolean) => client.release(destroy),
        }
        wrapped.set(client, own)
      }
      return own
    },
    end: () => pool.end(),
  }
}
