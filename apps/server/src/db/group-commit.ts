import { CompiledQuery, type Kysely, type Transaction } from 'kysely'
import type { Database } from './database'
import { isDatabaseFault } from './database-errors'

/** Where a channel's statements go: the turn's transaction, or the database itself. */
export type WriteExecutor = Kysely<Database> | Transaction<Database>

/** A statement not yet run: a raw `sql` statement, or a query builder, compiled for `db`. */
export type Statement = { compile(db: Kysely<Database>): CompiledQuery }

/**
 * One kind of write the group commit takes (a table's rows, most often): every item of a
 * turn is stored by one call, so a turn sends one statement per channel, not one per write.
 */
export type WriteChannel<Item, Answer = void> = {
  /** Names the channel in errors. */
  name: string
  /**
   * Stores the items of one turn, in the order they were written. Called again with some of
   * them alone when the turn failed for a reason that is not the database's (a constraint), so
   * it must have no effect outside the database.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a channel that refuses nothing answers nothing
  store(executor: WriteExecutor, items: Item[]): Promise<void | Refusals | Answer[]>
  /**
   * The one statement `store` sends for `items` (an insert), not run: a turn whose channels
   * all have one is sent as ONE statement (the others as data-modifying `with` clauses of the
   * last), which commits alone, atomically, with no `begin` and `commit` around it. Undefined
   * when these items need `store` (the turn is then a transaction).
   */
  statement?(db: Kysely<Database>, items: Item[]): Statement | undefined
  /**
   * For a channel whose writes may be refused without failing the turn (a fenced write that
   * found its row no longer held, and so wrote nothing): reads its statement's answer (`rows`)
   * and says which items were refused. Its statement is the turn's last (the rows the
   * database answers are the last statement's), and may itself begin with `with`; its `store`
   * answers the same refusals.
   */
  refusals?(rows: unknown[], items: Item[]): Refusals
  /**
   * For a channel whose callers get a value (a claim answers the row it took): reads its
   * statement's answer (`rows`, the rows of its own final `select`) and says what each item's
   * caller gets; its `store` answers the same. A turn with several channels that answer (or
   * refuse) is still one statement when each one's statement is `with … select …` (a final
   * `select` without parentheses): their final selects are tagged and put together.
   */
  answers?(rows: unknown[], items: Item[]): Answer[]
}

/**
 * Per item of a channel's turn: undefined when it was stored, or the error its caller gets
 * (it was refused and nothing of it was written; the turn's other writes are committed).
 */
export type Refusals = (Error | undefined)[]

type Entry = {
  channel: WriteChannel<unknown, unknown> | undefined
  item: unknown
  /** Work of its own in the turn's transaction (`transact`), when there is no channel. */
  work: ((executor: WriteExecutor) => Promise<unknown>) | undefined
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

export type GroupCommitOptions = {
  /** Writes in one turn at most (default 500: a multi-row insert stays well under PostgreSQL's 65 535 parameters). */
  maxTurn?: number
}

/**
 * One writer for the process: writes from concurrent requests and runs, asked for while the
 * database is busy with the writer's previous turn, go to it together in its next turn, ONE
 * transaction (the items of each channel as one multi-row statement). Each write's promise
 * resolves once the transaction that holds it has committed, never before: nothing is
 * acknowledged before it is stored.
 *
 * A turn that fails fails nobody else's write: a database fault (unreachable, out of disk:
 * the typed errors of `database-errors.ts`) fails every write of the turn with it, since none
 * is stored; any other error (a constraint one write broke) is the turn's rollback, and each
 * of its writes is tried again alone, so only the writes that fail alone fail.
 *
 * Writes that must follow another are written once that one's promise resolved; within a
 * turn, a channel's items keep their order, and channels go in the order each first appeared.
 *
 * @example
 * const writer = createGroupCommit(db)
 * await writer.write(ledgerChannel, [{ wallet, usage }])
 */
export function createGroupCommit(
  db: Kysely<Database>,
  options: GroupCommitOptions = {},
): GroupCommit {
  const maxTurn = options.maxTurn ?? 500
  let queue: Entry[] = []
  let turning: Promise<void> | undefined

  const enqueue = <T>(entry: Omit<Entry, 'resolve' | 'reject'>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ ...entry, resolve: resolve as (value: unknown) => void, reject })
      turning ??= turn()
    })

  // Takes whatever waits, up to maxTurn, until nothing does; one turn at a time.
  const turn = async (): Promise<void> => {
    // Writes asked for by the other requests whose input is ready now join the first's turn:
    // its turn starts once the event loop has run their callbacks (no timer, no added wait
    // when there are none).
    await new Promise<void>((resolve) => setImmediate(resolve))
    while (queue.length > 0) {
      const taken = queue.slice(0, maxTurn)
      queue = queue.slice(taken.length)
      await commitTurn(taken)
    }
    turning = undefined
  }

  const commitTurn = async (entries: Entry[]): Promise<void> => {
    let results: unknown[]
    try {
      results = await store(db, entries)
    } catch (error) {
      if (entries.length === 1 || isDatabaseFault(error)) {
        for (const entry of entries) entry.reject(error)
        return
      }
      // The rollback undid every write of the turn: each goes again alone, so the one that
      // broke a constraint fails and the others are stored.
      for (const entry of entries) await commitTurn([entry])
      return
    }
    for (const [index, entry] of entries.entries()) {
      const outcome = results[index]
      if (outcome instanceof Refused) entry.reject(outcome.error)
      else entry.resolve(outcome)
    }
  }

  return {
    write<Item, Answer = void>(channel: WriteChannel<Item, Answer>, item: Item): Promise<Answer> {
      return enqueue({ channel: channel as WriteChannel<unknown, unknown>, item, work: undefined })
    },
    transact<T>(work: (executor: WriteExecutor) => Promise<T>): Promise<T> {
      return enqueue({ channel: undefined, item: undefined, work })
    },
    async flush(): Promise<void> {
      while (turning) await turning
    },
  }
}

/** A write its channel refused (see `WriteChannel.refusals`): its caller gets `error`. */
class Refused {
  constructor(readonly error: Error) {}
}

/** Stores one turn's entries: one statement per channel, in a transaction unless one suffices. */
async function store(db: Kysely<Database>, entries: Entry[]): Promise<unknown[]> {
  const groups = new Map<WriteChannel<unknown, unknown> | Entry, Entry[]>()
  for (const entry of entries) {
    const key = entry.channel ?? entry
    const group = groups.get(key)
    if (group) group.push(entry)
    else groups.set(key, [entry])
  }
  const channels = [...groups].flatMap(([key, group]) =>
    'store' in key ? [{ channel: key, group, items: group.map((entry) => entry.item) }] : [],
  )
  const results = new Map<Entry, unknown>()
  const refuse = (group: Entry[], refusals: Refusals | undefined) => {
    if (!refusals) return
    for (const [index, error] of refusals.entries()) {
      if (error) results.set(group[index]!, new Refused(error))
    }
  }
  // What a channel that refuses or answers said of its items, from its rows.
  const settle = (
    { channel, group, items }: (typeof channels)[number],
    rows: unknown[] | Refusals | undefined,
    fromRows: boolean,
  ) => {
    if (channel.answers) {
      const answers = fromRows ? channel.answers(rows ?? [], items) : (rows ?? [])
      for (const [index, entry] of group.entries()) results.set(entry, answers[index])
    } else if (channel.refusals) {
      refuse(group, fromRows ? channel.refusals(rows ?? [], items) : (rows as Refusals))
    }
  }
  const answers = ({ channel }: (typeof channels)[number]) =>
    channel.refusals !== undefined || channel.answers !== undefined
  const answering = channels.filter(answers)
  if (channels.length === groups.size && channels.every(({ channel }) => channel.statement)) {
    // The channels that read the statement's answer go last; the order of a statement's
    // `with` clauses changes nothing (they run in one snapshot).
    const ordered = [...channels.filter((each) => !answers(each)), ...answering]
    const statements = ordered.map(({ channel, items }) => channel.statement!(db, items))
    if (statements.every((statement) => statement !== undefined)) {
      const compiled = statements.map((statement) => statement.compile(db))
      const plain = compiled.length - answering.length
      const query =
        answering.length <= 1
          ? oneStatement(compiled)
          : taggedStatement(compiled.slice(0, plain), compiled.slice(plain))
      if (query) {
        const { rows } = await db.executeQuery(query)
        for (const [index, each] of answering.entries()) {
          const own =
            answering.length <= 1
              ? rows
              : (rows as { channel: number; answer: unknown }[])
                  .filter((row) => row.channel === index)
                  .map((row) => row.answer)
          settle(each, own, true)
        }
        return entries.map((entry) => results.get(entry))
      }
    }
  }
  await db.transaction().execute(async (transaction) => {
    for (const [key, group] of groups) {
      if ('store' in key) {
        const items = group.map((entry) => entry.item)
        const stored = await key.store(transaction, items)
        settle({ channel: key, group, items }, stored ?? undefined, false)
      } else if (key.work) {
        results.set(key, await key.work(transaction))
      }
    }
  })
  return entries.map((entry) => results.get(entry))
}

/**
 * Statements as one: each but the last a data-modifying `with` clause (PostgreSQL runs every
 * one of them, to completion, in the statement's one snapshot), parameters numbered on.
 */
function oneStatement(queries: CompiledQuery[]): CompiledQuery {
  if (queries.length === 1) return queries[0]!
  const { texts, parameters } = numberedOn(queries)
  const last = texts.pop()!
  const clauses = texts.map((text, index) => `w${index} as (${text})`).join(', ')
  // A last statement with `with` clauses of its own continues the list.
  const withOwn = /^\s*with\s/i.exec(last)
  if (withOwn)
    return CompiledQuery.raw(`with ${clauses}, ${last.slice(withOwn[0].length)}`, parameters)
  return CompiledQuery.raw(`with ${clauses} ${last}`, parameters)
}

export type GroupCommit = {
  /** Stores `item` through `channel` in the writer's next turn; resolves once it has committed. */
  write<Item, Answer = void>(channel: WriteChannel<Item, Answer>, item: Item): Promise<Answer>
  /**
   * Runs `work` in the writer's next turn, inside its transaction (a write of several
   * statements that read what they lock, a run's step commit for instance); resolves with its
   * result once the turn has committed. Like a channel's `store`, it may be run again alone.
   */
  transact<T>(work: (executor: WriteExecutor) => Promise<T>): Promise<T>
  /** Resolves once every write asked for so far has been tried (stored or failed). */
  flush(): Promise<void>
}

/** The texts of `queries` with their parameters numbered on, as if they were one. */
function numberedOn(queries: CompiledQuery[]): { texts: string[]; parameters: unknown[] } {
  const parameters: unknown[] = []
  const texts = queries.map((query) => {
    const offset = parameters.length
    parameters.push(...query.parameters)
    // Kysely sends every value as a parameter: `$n` in its text is always one.
    return query.sql.replace(/\$(\d+)/g, (_, index: string) => `$${Number(index) + offset}`)
  })
  return { texts, parameters }
}

// `with <clauses> select …` whose final select has no parenthesis: where the clauses end.
const finalSelect = /\)\s*(select\s[^()]*)$/i
const leadingWith = /^\s*with\s/i

/**
 * Plain statements and several answering ones (each `with <clauses> <final select>`) as one:
 * every clause at the top, and each answering statement's final select tagged with its index
 * (`channel`) and its row as `answer`, put together with `union all`. Undefined when an
 * answering statement is not of that form (the turn then takes a transaction).
 */
function taggedStatement(
  plain: CompiledQuery[],
  answering: CompiledQuery[],
): CompiledQuery | undefined {
  const { texts, parameters } = numberedOn([...plain, ...answering])
  const clauses = texts.slice(0, plain.length).map((text, index) => `w${index} as (${text})`)
  const selects: string[] = []
  for (const [index, text] of texts.slice(plain.length).entries()) {
    const withOwn = leadingWith.exec(text)
    const final = finalSelect.exec(text)
    if (!withOwn || !final) return undefined
    clauses.push(text.slice(withOwn[0].length, final.index + 1))
    selects.push(
      `select ${index} as channel, to_jsonb(a${index}) as answer from (${final[1]}) a${index}`,
    )
  }
  return CompiledQuery.raw(`with ${clauses.join(', ')} ${selects.join(' union all ')}`, parameters)
}
