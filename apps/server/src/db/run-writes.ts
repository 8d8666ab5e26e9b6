import type { Kysely } from 'kysely'
import { RunTakenOverError } from '../scale/run-taken-over-error'
import type { Database } from './database'
import type { GroupCommit, Refusals, WriteChannel, WriteExecutor } from './group-commit'
import { type RunWrite, runWritesStatement } from './run-write-rows'

/** A fenced write whose run was no longer held wrote nothing: its caller is told. */
function refusalsOf(rows: unknown[], writes: RunWrite[]): Refusals {
  const held = new Set((rows as { id: string }[]).map((row) => row.id))
  return writes.map(({ runId, executedBy }) =>
    executedBy && !held.has(runId) ? new RunTakenOverError({ runId, executedBy }) : undefined,
  )
}

/**
 * The runs' fenced writes (a batch of events, a step's commit, a run's end) on the process's
 * group commit: the writes of every run in one turn are one statement (with the turn's other
 * channels, one commit), and each caller is answered once it has committed, or refused with
 * `RunTakenOverError` when its process no longer held its run (nothing of it was written).
 */
export const runWrites: WriteChannel<RunWrite> = {
  name: 'run writes',
  statement: (_db, writes) => runWritesStatement(writes),
  refusals: refusalsOf,
  async store(executor: WriteExecutor, writes: RunWrite[]): Promise<Refusals> {
    // Two writes of one run in a turn: each in turn, in the order they were asked for.
    const together = runWritesStatement(writes)
    if (together) return refusalsOf((await together.execute(executor)).rows, writes)
    const refusals: Refusals = []
    for (const write of writes) {
      const { rows } = await runWritesStatement([write])!.execute(executor)
      refusals.push(...refusalsOf(rows, [write]))
    }
    return refusals
  },
}

/**
 * Stores one run write: through `writer` when the process has one (resolved once committed),
 * else as its own statement. Throws `RunTakenOverError` when the run was not held.
 *
 * @example
 * await storeRunWrite(db, writer, { runId, executedBy, steps: [], events, ledger: [] })
 */
export async function storeRunWrite(
  db: Kysely<Database>,
  writer: GroupCommit | undefined,
  write: RunWrite,
): Promise<void> {
  if (writer) return writer.write(runWrites, write)
  const { rows } = await runWritesStatement([write])!.execute(db)
  const [refused] = refusalsOf(rows, [write])
  if (refused) throw refused
}
