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
