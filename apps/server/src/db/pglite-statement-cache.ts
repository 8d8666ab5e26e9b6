import { type PGlite, parse, protocol, type Results } from '@electric-sql/pglite'

/** What `kysely-pglite-dialect` asks of its client: queries, and closing it. */
export type PgliteClient = Pick<PGlite, 'query' | 'close'>

export type StatementCacheOptions = {
  /** Statements kept prepared at most (default 200); the least recently used is closed. */
  size?: number
}

type Prepared = { name: string; parameterTypes: number[] }

// Only statements that plan: a utility statement (`begin`, `commit`, `set`) has nothing to keep.
const planned = /^\s*(select|insert|update|delete|with)\s/i
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
  // Texts by recency: `undefined` once seen, the statement once prepared.
  const texts = new Map<string, Prepared | undefined>()
  let named = 0
  let preparedCount = 0

  const touch = (text: string, entry: Prepared | undefined) => {
    texts.delete(text)
    texts.set(text, entry)
  }

  // Room for one more: the least recently used statements closed in the session, and forgotten.
  const roomy = () => preparedCount < size && texts.size < 4 * size
  const evict = async () => {
    if (roomy()) return
    for (const [text, entry] of texts) {
      if (roomy()) break
      texts.delete(text)
      if (entry) {
        preparedCount -= 1
        await pglite.execProtocolStream(serialize.close({ type: 'S', name: entry.name }), {
          syncToFs: false,
        })
      }
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
    let prepared = known
    if (!prepared) {
      try {
        await evict()
        prepared = await prepare(text)
      } catch (error) {
        // The session skips what follows an error until a Sync.
        await pglite.execProtocolStream(serialize.sync(), { syncToFs: false })
        throw error
      }
      preparedCount += 1
      touch(text, prepared)
    }
    const types = prepared.parameterTypes
    const values = parameters.map((value, index) => {
      if (value === null || value === undefined) return null
      const serializer = pglite.serializers[types[index]!]
      return serializer ? serializer(value) : String(value)
    })
    // One call for the four messages: the session reads them all, Sync included, and answers
    // an error (thrown here) only once it is ready for the next statement.
    const messages = await pglite.execProtocolStream(
      concatenated([
        serialize.bind({ statement: prepared.name, values }),
        serialize.describe({ type: 'P' }),
        serialize.execute({}),
        serialize.sync(),
      ]),
      { syncToFs: false },
    )
    await pglite.syncToFs()
    return parse.parseResults(messages, pglite.parsers)[0]!
  }

  return {
    query: (async (text: string, parameters: unknown[] = []) => {
      if (!planned.test(text)) return pglite.query(text, parameters)
      if (!texts.has(text)) {
        touch(text, undefined)
        return pglite.query(text, parameters)
      }
      return pglite.runExclusive(() => {
        const known = texts.get(text)
        if (known) touch(text, known)
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
