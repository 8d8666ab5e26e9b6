import { type RawBuilder, sql } from 'kysely'

/**
 * Rows of any number as ONE parameter: `jsonb_to_recordset(<the rows as JSON>) as <alias>
 * (<columns>)`, a relation to insert from or join with. A statement built on it has the same
 * text whatever its rows, so the database keeps it prepared (see `withStatementCache`), where
 * a `values` list of one parameter per cell is another statement, parsed and planned again,
 * for every count of rows.
 *
 * Each row is an object whose keys are the columns' names. A `jsonb` column takes the value
 * as it is (an object, an array, a string); a JSON `null` or a missing key is SQL `null`;
 * a `timestamptz` takes an ISO string or a `Date`.
 *
 * @example
 * sql`insert into ledger (wallet, calls)
 *   select wallet, calls from ${jsonRows(rows, 'row', 'wallet text, calls double precision')}`
 */
export function jsonRows(rows: object[], alias: string, columns: string): RawBuilder<unknown> {
  return sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as ${sql.raw(alias)} (${sql.raw(columns)})`
}

/**
 * A table's columns and their types, written once, and the insert of rows of it from one
 * parameter (`jsonRows`). `Row`'s keys are the columns.
 *
 * @example
 * const ledger = jsonTable<LedgerRow>('ledger', { wallet: 'text', calls: 'double precision' })
 * await ledger.insert(rows, sql`on conflict do nothing`).execute(db)
 */
export function jsonTable<Row extends object>(
  table: string,
  types: { [Column in keyof Row & string]: string },
) {
  const names = Object.keys(types) as (keyof Row & string)[]
  const definition = names.map((name) => `${name} ${types[name]}`).join(', ')
  const columns = sql.raw(names.join(', '))
  const selected = sql.raw(names.map((name) => `row.${name}`).join(', '))
  return {
    names,
    /** `insert into <table> (<columns>) select … from <rows> as row`, then `tail` (a `where` on `row`, an `on conflict`). */
    insert: (rows: Row[], tail?: RawBuilder<unknown>) =>
      sql`insert into ${sql.raw(table)} (${columns}) select ${selected} from ${jsonRows(rows, 'row', definition)}${tail ? sql` ${tail}` : sql``}`,
  }
}
