import { performance } from 'node:perf_hooks'
import { type Kysely, sql } from 'kysely'
import type { Database } from './database'

export type EmbeddedVacuumOptions = {
  /** How often the tables' statistics are looked at (default 10 s; PostgreSQL's naptime is 60). */
  everyMs?: number
  /**
   * A look only analyses (no vacuum) while the process was busier than this since the last
   * one (its event loop's utilisation, 0 to 1; default 0.5): a vacuum holds the embedded
   * database, which is the process's own thread, for up to a second, so it waits for a
   * quieter moment; never more than `maxSkipped` looks in a row (default 10), so a server
   * that is always busy is still kept. Analysing is not put off: see `startEmbeddedVacuum`.
   */
  busyAbove?: number
  maxSkipped?: number
  /** What one look did, when it did something: the tables vacuumed and analysed, and how long. */
  onDone?: (done: VacuumPass) => void
  /** A look that failed (the database closed or full): reported, and tried again at the next. */
  onError?: (error: unknown) => void
}

/** What one pass did. */
export type VacuumPass = {
  /** Tables vacuumed (their dead row versions made reusable), analysed after when due. */
  vacuumed: string[]
  /** Tables only analysed (their planner statistics brought up to date). */
  analysed: string[]
  ms: number
}

export type EmbeddedVacuum = {
  /** Looks now (after any pass already running) and does what is due. */
  runNow(): Promise<VacuumPass>
  /** Stops looking; resolves once a pass under way has ended. */
  stop(): Promise<void>
}

type TableStatistics = {
  relname: string
  n_live_tup: string | number
  n_dead_tup: string | number
  n_mod_since_analyze: string | number
  frozen_age: string | number
}

// PostgreSQL's autovacuum defaults: a table is vacuumed once its dead rows pass a base plus a
// share of its rows, analysed once its changes do, and vacuumed (which freezes) once its oldest
// unfrozen transaction id is older than `autovacuum_freeze_max_age`. Vacuuming for inserts
// (PostgreSQL 13's visibility-map trigger) is left out: it would visit every table of a server
// that only appends, for index-only scans it does not make.
const VACUUM_BASE = 50
const VACUUM_SHARE = 0.2
const ANALYZE_BASE = 50
const ANALYZE_SHARE = 0.1
const FREEZE_MAX_AGE = 200_000_000
const ANALYZE_TARGET = 10

/**
 * The autovacuum the embedded database does not have. PGlite runs PostgreSQL as one process
 * in single-user mode, with no autovacuum launcher: every update leaves a dead row version
 * that nothing reclaims, and no table is ever analysed. A server's `runs` (two updates of its
 * indexed status per run) took 2.4 times the room of its live rows, and a look-up by status
 * visits every dead index entry of it: counting a status through 20 000 dead entries took
 * 1.6 ms, 0.3 ms once vacuumed.
 *
 * Worse, a prepared statement's plan is made again only when a table it reads is analysed
 * (or altered): the group commit's statements, planned while the tables were empty, kept
 * their plans as the tables grew, and a loaded server's runs went from ~1 ms of database
 * time each to 9-12 ms, with the statement that had taken 80-110 ms answering in 6-13 ms
 * planned afresh. Analysing a table as it grows (every 10% of its rows changed) has every
 * statement planned again for the table's size.
 *
 * This looks at `pg_stat_user_tables` every `everyMs` and vacuums, analyses, or both, each
 * table past PostgreSQL's own autovacuum thresholds, one table at a time (other statements
 * wait for each, as they wait for a transaction); a vacuum waits for a quieter moment, an
 * analysis does not. PostgreSQL proper has its own autovacuum and does not need this.
 *
 * @example
 * const vacuum = startEmbeddedVacuum(db, { onDone: (pass) => log.info(pass, 'vacuumed') })
 * await vacuum.stop()
 */
export function startEmbeddedVacuum(
  db: Kysely<Database>,
  options: EmbeddedVacuumOptions = {},
): EmbeddedVacuum {
  const everyMs = options.everyMs ?? 10_000
  const busyAbove = options.busyAbove ?? 0.5
  const maxSkipped = options.maxSkipped ?? 10
  let lastLook = performance.eventLoopUtilization()
  let skipped = 0
  let running: Promise<VacuumPass> = Promise.resolve({ vacuumed: [], analysed: [], ms: 0 })
  let stopped = false

  // A sample of 3 000 rows (statistics target 10), not PostgreSQL's 30 000: an analysis
  // holds the one connection too, and what the server's statements need from it is the
  // table's size and its common values (a 43 000-run server's run_events: 47 ms, 470 at 100).
  const analyse = (table: string) =>
    db.transaction().execute(async (transaction) => {
      await sql`set local default_statistics_target = ${sql.lit(ANALYZE_TARGET)}`.execute(
        transaction,
      )
      await sql`analyze ${sql.table(table)}`.execute(transaction)
    })

  // `vacuumNow` false: only the analyses that are due (a busy process).
  const pass = async (vacuumNow: boolean): Promise<VacuumPass> => {
    const started = performance.now()
    const { rows } = await sql<TableStatistics>`
      select s.relname, s.n_live_tup, s.n_dead_tup, s.n_mod_since_analyze,
        age(c.relfrozenxid) as frozen_age
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = 'public'
      order by s.relname`.execute(db)
    const vacuumed: string[] = []
    const analysed: string[] = []
    for (const table of rows) {
      if (stopped) break
      const live = Number(table.n_live_tup)
      const vacuum =
        Number(table.n_dead_tup) > VACUUM_BASE + VACUUM_SHARE * live ||
        Number(table.frozen_age) > FREEZE_MAX_AGE
      const analyze = Number(table.n_mod_since_analyze) > ANALYZE_BASE + ANALYZE_SHARE * live
      if (vacuum && vacuumNow) {
        await sql`vacuum ${sql.table(table.relname)}`.execute(db)
        vacuumed.push(table.relname)
        if (analyze) await analyse(table.relname)
      } else if (analyze) {
        await analyse(table.relname)
        analysed.push(table.relname)
      }
    }
    return { vacuumed, analysed, ms: performance.now() - started }
  }

  // One pass at a time: a look asked for while one runs waits for it, then looks again.
  const look = (vacuumNow: boolean): Promise<VacuumPass> => {
    const next = () => pass(vacuumNow)
    running = running.then(next, next)
    return running
  }

  const tick = () => {
    const now = performance.eventLoopUtilization()
    const since = performance.eventLoopUtilization(now, lastLook)
    lastLook = now
    const busy = since.utilization > busyAbove && skipped < maxSkipped
    skipped = busy ? skipped + 1 : 0
    look(!busy).then(
      (done) => {
        if (done.vacuumed.length + done.analysed.length > 0) options.onDone?.(done)
      },
      (error: unknown) => {
        if (!stopped) options.onError?.(error)
      },
    )
  }
  const timer = setInterval(tick, everyMs)
  // Maintenance never keeps a process alive that has nothing else to do.
  timer.unref()

  return {
    runNow: () => look(true),
    async stop() {
      stopped = true
      clearInterval(timer)
      await running.catch(() => {})
    },
  }
}
