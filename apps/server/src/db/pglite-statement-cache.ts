import { type messages, type PGlite, parse, protocol, type Results } from '@electric-sql/pglite'

/** What `kysely-pglite-dialect` asks of its client: queries, and closing it. */
export type PgliteClient = Pick<PGlite, 'query' | 'close'>

export type StatementCacheOptions = {
  /** Statements kept prepared at most (default 200); the least recently used is closed. */
  size?: number
}

type Prepared = { name: string; parameterTypes: number[] }

// Only statements that plan: a utility statement (`begin`, `commit`, `set`) has nothing to keep.
const planned = /^\s*(select|insert|update|delete|with)\s/i
// A statement that takes no parameters and is not planned: run without asking its parameters' types.
const utility = /^\s*(begin|commit|rollback|savepoint|release|set|start transaction|end)\b/i
const { serialize } = protocol

/**
 * The embedded database's client for Kysely, with a cache of prepared statements: a text
 * asked for a second time is prepared (named) and from then on only bound and executed, as
 * `postgres.js` and PostgreSQL's JDBC driver do. An unnamed statement is parsed, analysed and
 * planned again at every call, and in PGlite that work is the process's own CPU: under the
 * runs and A2A rows, parsing and binding the group commit's statements took more than
 * executing them.
 *
 * The statements a server repeats are few (the group commit's are of one shape whatever
 * their rows, see `json-rows.ts`); a text seen once stays unnamed, and at most `size` are
 * kept. Errors are PGlite's own (`DatabaseError`, with its code), as from `query`.
 *
 * @example
 * const db = new Kysely<Database>({ dialect: new PGliteDialect(withStatementCache(pglite)) })
 */
export function withStatementCache(
  pglite: PGlite,
  options: StatementCacheOptions = {},
): PgliteClient {
  const size = options.size ?? 200
  // The prepared statements by recency (a Map keeps the order entries were set in), and the
  // texts seen once, forgotten in bulk: a text is prepared only if asked for again soon.
  const prepared = new Map<string, Prepared>()
  const seen = new Set<string>()
  let named = 0

  // Room for one more: the least recently used statements closed in the session, and forgotten.
  const evict = async () => {
    for (const [text, { name }] of prepared) {
      if (prepared.size < size) return
      prepared.delete(text)
      await pglite.execProtocolStream(serialize.close({ type: 'S', name }), { syncToFs: false })
    }
  }

  const prepare = async (text: string): Promise<Prepared> => {
    named += 1
    const name = `baton_${named}`
    await pglite.execProtocolStream(serialize.parse({ name, text, types: [] }), {
      syncToFs: false,
    })
    const described = await pglite.execProtocolStream(serialize.describe({ type: 'S', name }), {
      syncToFs: false,
    })
    return { name, parameterTypes: parse.parseDescribeStatementResults(described) }
  }

  const execute = async (
    text: string,
    parameters: unknown[],
    known: Prepared | undefined,
  ): Promise<Results> => {
    let statement = known
    if (!statement) {
      try {
        await evict()
        statement = await prepare(text)
      } catch (error) {
        // The session skips what follows an error until a Sync.
        await pglite.execProtocolStream(serialize.sync(), { syncToFs: false })
        throw error
      }
      seen.delete(text)
      prepared.set(text, statement)
    }
    const types = statement.parameterTypes
    const values = parameters.map((value, index) => {
      if (value === null || value === undefined) return null
      const serializer = pglite.serializers[types[index]!]
      return serializer ? serializer(value) : String(value)
    })
    return bindAndExecute([], statement.name, values)
  }

  // One call for the messages (a Parse first for an unnamed statement): the session reads them
  // all, Sync included, and answers an error (thrown here) only once it is ready for the next
  // statement. The files are synced after, as `query` does.
  const bindAndExecute = async (
    before: Uint8Array[],
    statement: string,
    values: (string | null)[],
  ): Promise<Results> => {
    const messages = await pglite.execProtocolStream(
      concatenated([
        ...before,
        serialize.bind({ statement, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      { syncToFs: false },
    )
    await pglite.syncToFs()
    return resultOf(messages, pglite.parsers)
  }

  // `begin`, `commit` and the like, as `query` would run them, without asking for parameter
  // types (they take none).
  const run = (text: string): Promise<Results> =>
    bindAndExecute([serialize.parse({ text, types: [] })], '', [])

  return {
    query: (async (text: string, parameters: unknown[] = []) => {
      if (parameters.length === 0 && utility.test(text)) {
        return pglite.runExclusive(() => run(text))
      }
      if (!planned.test(text)) return pglite.query(text, parameters)
      if (!prepared.has(text) && !seen.has(text)) {
        if (seen.size >= 4 * size) seen.clear()
        seen.add(text)
        return pglite.query(text, parameters)
      }
      return pglite.runExclusive(() => {
        const known = prepared.get(text)
        if (known) {
          prepared.delete(text)
          prepared.set(text, known)
        }
        return execute(text, parameters, known)
      })
    }) as PGlite['query'],
    close: () => pglite.close(),
  }
}

function concatenated(parts: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((length, part) => length + part.length, 0))
  let offset = 0
  for (const part of parts) {
    whole.set(part, offset)
    offset += part.length
  }
  return whole
}

/**
 * The result of one statement, its columns read by the database's parsers. PGlite's
 * `parseResults` copies the parsers it is given into a new object at every call; the
 * database's own table (316 types, keyed by number) takes ~77 µs to copy, more than a group
 * commit's statement takes to run. Given only the parsers of the result's columns, it copies
 * a few.
 */
function resultOf(messages: messages.BackendMessage[], parsers: PGlite['parsers']): Results {
  const used: PGlite['parsers'] = {}
  for (const message of messages) {
    if (message.name !== 'rowDescription') continue
    for (const { dataTypeID } of (message as messages.RowDescriptionMessage).fields) {
      const parser = parsers[dataTypeID]
      if (parser) used[dataTypeID] = parser
    }
  }
  return parse.parseResults(messages, used)[0]!
}
