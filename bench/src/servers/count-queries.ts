import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

/** What the server's database was asked since the last `reset()`. */
export type QueryCounts = {
  /** Every statement sent, `begin` and `commit` included: the round trips to the database. */
  queries: number
  /** Explicit transactions (`begin`), plus writes that committed alone (outside one). */
  transactions: number
}

export type QueryCounter = {
  reset(): void
  read(): QueryCounts
}

type Queryable = { prototype: { query: (...args: never[]) => Promise<unknown> } }

const writes = /^\s*(insert|update|delete|with|merge)\b/i
const begins = /^\s*(begin|start transaction)\b/i
const ends = /^\s*(commit|rollback)\b/i

/**
 * Counts the queries of the server in this process at the drivers (PGlite's `query`, and
 * node-postgres' `Client.query` for `DATABASE_URL`), loaded from the server's own
 * dependencies so the patched classes are the ones it uses. The bench's hook only: the server
 * knows nothing of it.
 *
 * @example
 * const counter = await installQueryCounter(serverDirectory)
 * counter.reset(); await load(); counter.read() // { queries: 1200, transactions: 400 }
 */
export async function installQueryCounter(serverDirectory: string): Promise<QueryCounter> {
  let counts: QueryCounts = { queries: 0, transactions: 0 }
  const require = createRequire(path.join(serverDirectory, 'package.json'))
  const patch = (target: Queryable) => {
    const original = target.prototype.query
    // One connection of PGlite runs one statement at a time; a pooled pg client is one
    // connection too: `inTransaction` is per client.
    target.prototype.query = function (this: { __inTransaction?: boolean }, ...args: never[]) {
      const text =
        typeof args[0] === 'string'
          ? args[0]
          : (args[0] as unknown as { text?: string } | undefined)?.text
      if (typeof text === 'string') {
        counts.queries += 1
        if (begins.test(text)) {
          counts.transactions += 1
          this.__inTransaction = true
        } else if (ends.test(text)) {
          this.__inTransaction = false
        } else if (!this.__inTransaction && writes.test(text)) {
          counts.transactions += 1
        }
      }
      return original.apply(this, args)
    } as never
  }
  // The ESM entry the server imports (a CommonJS copy would be another class): found from the
  // CommonJS one's folder, since the package does not export its package.json.
  const pgliteFolder = path.dirname(path.dirname(require.resolve('@electric-sql/pglite')))
  const manifest = JSON.parse(await readFile(path.join(pgliteFolder, 'package.json'), 'utf8'))
  const pglite = (await import(
    pathToFileURL(path.join(pgliteFolder, manifest.exports['.'].import.default)).href
  )) as { PGlite: Queryable }
  patch(pglite.PGlite)
  patch((require('pg') as { Client: Queryable }).Client)
  return {
    reset() {
      counts = { queries: 0, transactions: 0 }
    },
    read: () => ({ ...counts }),
  }
}
