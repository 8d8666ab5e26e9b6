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
type ProtocolClient = {
  prototype: { execProtocolStream: (message: Uint8Array, ...rest: unknown[]) => Promise<unknown> }
}

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
  // One connection of PGlite runs one statement at a time; a pooled pg client is one
  // connection too: `inTransaction` is per client.
  const count = (client: { __inTransaction?: boolean }, text: string) => {
    counts.queries += 1
    if (begins.test(text)) {
      counts.transactions += 1
      client.__inTransaction = true
    } else if (ends.test(text)) {
      client.__inTransaction = false
    } else if (!client.__inTransaction && writes.test(text)) {
      counts.transactions += 1
    }
  }
  const patch = (target: Queryable) => {
    const original = target.prototype.query
    target.prototype.query = function (this: { __inTransaction?: boolean }, ...args: never[]) {
      const text =
        typeof args[0] === 'string'
          ? args[0]
          : (args[0] as unknown as { text?: string } | undefined)?.text
      if (typeof text === 'string') count(this, text)
      return original.apply(this, args)
    } as never
  }
  // The server's statement cache runs a prepared statement through PGlite's protocol, not its
  // `query`: each execution is one `Bind` of a named statement, whose text its `Parse` gave.
  const patchProtocol = (target: ProtocolClient) => {
    const original = target.prototype.execProtocolStream
    const texts = new Map<string, string>()
    const decoder = new TextDecoder()
    const cString = (message: Uint8Array, from: number) => {
      const end = message.indexOf(0, from)
      return { text: decoder.decode(message.subarray(from, end)), next: end + 1 }
    }
    target.prototype.execProtocolStream = function (
      this: { __inTransaction?: boolean },
      message: Uint8Array,
      ...rest: unknown[]
    ) {
      // Parse: 'P', length, name, text; Bind: 'B', length, portal, statement.
      if (message[0] === 0x50) {
        const name = cString(message, 5)
        if (name.text) texts.set(name.text, cString(message, name.next).text)
      } else if (message[0] === 0x42) {
        const statement = cString(message, cString(message, 5).next).text
        const text = texts.get(statement)
        if (text !== undefined) count(this, text)
      }
      return original.apply(this, [message, ...rest])
    }
  }
  // The ESM entry the server imports (a CommonJS copy would be another class): found from the
  // CommonJS one's folder, since the package does not export its package.json.
  const pgliteFolder = path.dirname(path.dirname(require.resolve('@electric-sql/pglite')))
  const manifest = JSON.parse(await readFile(path.join(pgliteFolder, 'package.json'), 'utf8'))
  const pglite = (await import(
    pathToFileURL(path.join(pgliteFolder, manifest.exports['.'].import.default)).href
  )) as { PGlite: Queryable & ProtocolClient }
  patch(pglite.PGlite)
  patchProtocol(pglite.PGlite)
  patch((require('pg') as { Client: Queryable }).Client)
  return {
    reset() {
      counts = { queries: 0, transactions: 0 }
    },
    read: () => ({ ...counts }),
  }
}
