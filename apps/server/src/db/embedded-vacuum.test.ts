import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { openTestDatabase } from '../__fixtures__/test-database'
import { seedDemo } from '../seed/seed-demo'
import { startEmbeddedVacuum, type VacuumPass } from './embedded-vacuum'
import type { OpenedDatabase } from './open-database'

type Statistics = {
  n_live_tup: number
  n_dead_tup: number
  last_vacuum: Date | null
  last_analyze: Date | null
}

/**
 * How long a test waits for statistics to show a change. PostgreSQL publishes a session's
 * statistics at most once a second (`PGSTAT_MIN_INTERVAL`), at the first statement after that
 * second: a wait of one second (`expect.poll`'s default) races the publication, and lost it
 * on a loaded machine.
 */
const published = { timeout: 5_000 }

describe('startEmbeddedVacuum on PGlite', () => {
  let opened: OpenedDatabase
  beforeAll(async () => {
    opened = await openTestDatabase('pglite')
  })
  afterAll(() => opened.db.destroy())

  const run = (text: string) => sql.raw(text).execute(opened.db)
  const statistics = async (table: string): Promise<Statistics> => {
    const { rows } = await sql<Statistics>`
      select n_live_tup::int, n_dead_tup::int, last_vacuum, last_analyze
      from pg_stat_user_tables where relname = ${table}`.execute(opened.db)
    return rows[0]!
  }
  // What a status look-up costs the database: the index entries it visits, dead or alive.
  const statusScan = async (table: string) => {
    await run('set enable_seqscan = off')
    const { rows } = await sql<{ 'QUERY PLAN': string }>`${sql.raw(
      `explain (analyze, buffers, costs off, timing off) select count(*) from ${table} where status = 'queued'`,
    )}`.execute(opened.db)
    await run('reset enable_seqscan')
    return rows.map((row) => row['QUERY PLAN']).join('\n')
  }
  const passes: VacuumPass[] = []
  const vacuums: { stop(): Promise<void> }[] = []
  afterAll(() => Promise.all(vacuums.map((vacuum) => vacuum.stop())))
  // One pass now, by a vacuum whose own timer never comes round in the test.
  const passNow = () => {
    const vacuum = startEmbeddedVacuum(opened.db, { everyMs: 60_000 })
    vacuums.push(vacuum)
    return vacuum.runNow()
  }

  it('reclaims the dead row versions that updates left, which nothing else does', async () => {
    await run('create table updated (id int primary key, status text, body text)')
    await run('create index updated_status on updated (status)')
    await run(
      "insert into updated select n, 'queued', repeat('x', 200) from generate_series(1, 3000) n",
    )
    // A run's life: queued, running, done, every row updated on an indexed column.
    await run("update updated set status = 'running'")
    await run("update updated set status = 'done'")
    await run("update updated set status = 'queued' where id <= 100")
    await expect
      .poll(async () => (await statistics('updated')).n_dead_tup, published)
      .toBeGreaterThan(6000)
    // The embedded database keeps them: no autovacuum runs in it, however long one waits.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect((await statistics('updated')).last_vacuum).toBeNull()
    const before = await statusScan('updated')

    const pass = await passNow()
    passes.push(pass)

    expect(pass.vacuumed).toContain('updated')
    const after = await statistics('updated')
    expect(after.n_dead_tup).toBe(0)
    expect(after.n_live_tup).toBe(3000)
    expect(after.last_vacuum).not.toBeNull()
    // Analysed with it: the planner knows the table now.
    expect(after.last_analyze).not.toBeNull()
    // The same look-up reads fewer index pages once the dead entries are gone.
    const pagesOf = (plan: string) => Number(/Buffers: shared hit=(\d+)/.exec(plan)?.[1])
    expect(pagesOf(await statusScan('updated'))).toBeLessThan(pagesOf(before))
    // Nothing was lost.
    const { rows } = await sql<{ status: string; count: number }>`
      select status, count(*)::int as count from updated group by status order by status`.execute(
      opened.db,
    )
    expect(rows).toEqual([
      { status: 'done', count: 2900 },
      { status: 'queued', count: 100 },
    ])
  })

  it('analyses a table that only grew, without vacuuming it', async () => {
    await run('create table appended (id int primary key, body text)')
    await run("insert into appended select n, 'row ' || n from generate_series(1, 2000) n")
    await expect
      .poll(async () => (await statistics('appended')).n_live_tup, published)
      .toBeGreaterThanOrEqual(2000)
    const pass = await passNow()
    expect(pass.analysed).toContain('appended')
    expect(pass.vacuumed).not.toContain('appended')
    // From a small sample (statistics target 10): a histogram of 11 bounds, not PostgreSQL's 101.
    const { rows } = await sql<{ bounds: number }>`
      select array_length(histogram_bounds::text::text[], 1) as bounds
      from pg_stats where tablename = 'appended' and attname = 'body'`.execute(opened.db)
    expect(rows[0]!.bounds).toBe(11)
  })

  it('has a statement prepared while its table was small planned again once it grew', async () => {
    await run('create table grown (id int primary key, body text)')
    await run("insert into grown select n, 'row' from generate_series(1, 10) n")
    // Known small: one page, where reading it all is the cheapest plan.
    await run('analyze grown')
    // As the server's statement cache does: prepared once, executed again and again.
    await run('prepare grown_by_id (int) as select body from grown where id = $1')
    for (let index = 1; index <= 8; index += 1) await run(`execute grown_by_id(${index})`)
    const plan = async () =>
      (await sql<{ 'QUERY PLAN': string }>`explain execute grown_by_id(5)`.execute(opened.db)).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n')
    expect(await plan()).toContain('Seq Scan on grown')
    await run("insert into grown select n, 'row' from generate_series(11, 100000) n")
    // Grown ten thousand times, the cached plan still reads the whole table for one row.
    expect(await plan()).toContain('Seq Scan on grown')

    // The statistics a look reads are the ones the database has published (within a second).
    await expect
      .poll(async () => (await statistics('grown')).n_live_tup, published)
      .toBeGreaterThanOrEqual(100_000)
    const pass = await passNow()
    expect(pass.analysed).toContain('grown')
    expect(await plan()).toContain('Index Scan using grown_pkey')
    await run('deallocate grown_by_id')
  })

  it('leaves alone a table whose changes are below the thresholds', async () => {
    const vacuum = startEmbeddedVacuum(opened.db, { everyMs: 60_000 })
    vacuums.push(vacuum)
    await vacuum.runNow()
    // 3000 rows: 10 dead versions are far below 50 + 20%.
    await run("update updated set body = 'changed' where id <= 10")
    await expect
      .poll(async () => (await statistics('updated')).n_dead_tup, published)
      .toBeGreaterThanOrEqual(10)
    const pass = await vacuum.runNow()
    expect(pass.vacuumed).not.toContain('updated')
    expect(pass.analysed).not.toContain('updated')
  })

  it('looks on its own, every everyMs, and says what it did', async () => {
    await run('create table timed (id int primary key, status text)')
    await run("insert into timed select n, 'queued' from generate_series(1, 1000) n")
    await run("update timed set status = 'done'")
    await expect
      .poll(async () => (await statistics('timed')).n_dead_tup, published)
      .toBeGreaterThanOrEqual(1000)
    const done: VacuumPass[] = []
    const vacuum = startEmbeddedVacuum(opened.db, {
      everyMs: 50,
      busyAbove: 1,
      onDone: (pass) => done.push(pass),
    })
    vacuums.push(vacuum)
    await expect
      .poll(() => done.flatMap((pass) => pass.vacuumed), { timeout: 5_000 })
      .toContain('timed')
    await vacuum.stop()
    expect((await statistics('timed')).n_dead_tup).toBe(0)
  })

  it('analyses at once but puts a vacuum off while the process is busy, maxSkipped looks at most', async () => {
    await run('create table busy (id int primary key, status text)')
    await run("insert into busy select n, 'queued' from generate_series(1, 1000) n")
    await run("update busy set status = 'done'")
    await expect
      .poll(async () => (await statistics('busy')).n_dead_tup, published)
      .toBeGreaterThanOrEqual(1000)
    const started = performance.now()
    let analysedAt: number | undefined
    let vacuumedAt: number | undefined
    // Every look counts as busy (any utilisation is above 0): four only analyse, the fifth
    // vacuums as well.
    const vacuum = startEmbeddedVacuum(opened.db, {
      everyMs: 100,
      busyAbove: 0,
      maxSkipped: 4,
      onDone: (pass) => {
        if (pass.analysed.includes('busy')) analysedAt ??= performance.now() - started
        if (pass.vacuumed.includes('busy')) vacuumedAt ??= performance.now() - started
      },
    })
    vacuums.push(vacuum)
    await expect.poll(() => vacuumedAt, { timeout: 5_000 }).toBeDefined()
    // Analysed at the first look, busy or not: a statement's plan is made again for its size.
    expect(analysedAt).toBeDefined()
    expect(analysedAt!).toBeLessThan(vacuumedAt!)
    expect(vacuumedAt).toBeGreaterThanOrEqual(450)
    await vacuum.stop()
  })

  it('stops once the pass under way has ended', async () => {
    await run("update updated set status = 'running'")
    await run("update updated set status = 'done'")
    const vacuum = startEmbeddedVacuum(opened.db, { everyMs: 60_000 })
    let passEnded = false
    const pass = vacuum.runNow().then((done) => {
      passEnded = true
      return done
    })
    await vacuum.stop()
    expect(passEnded).toBe(true)
    await pass
  })
})

describe('startEmbeddedVacuum when the database is gone', () => {
  it('reports the failure of a look and looks again, never throwing into the process', async () => {
    const opened = await openTestDatabase('pglite')
    await opened.db.destroy()
    const errors: unknown[] = []
    const vacuum = startEmbeddedVacuum(opened.db, {
      everyMs: 50,
      busyAbove: 1,
      onError: (error) => errors.push(error),
    })
    await expect(vacuum.runNow()).rejects.toThrow()
    // Each look fails alone: the timer keeps looking.
    await expect.poll(() => errors.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2)
    await vacuum.stop()
    const reported = errors.length
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(errors.length).toBe(reported)
  })
})

describe('the server on the embedded database', () => {
  const analyst = '0x1111111111111111111111111111111111111111'
  const plan = {
    name: 'one-step',
    steps: [{ op: 'delegate', saveAs: 'answer', agentWallet: analyst, prompt: 'Hi' }],
  }

  // Runs go queued, running, done: two updates of an indexed column each, two dead versions.
  async function runsOf(app: FastifyInstance, count: number) {
    const ids: string[] = []
    for (let index = 0; index < count; index += 1) {
      const response = await app.inject({ method: 'POST', url: '/api/v1/runs', payload: { plan } })
      expect(response.statusCode).toBe(202)
      ids.push(response.json().id)
    }
    for (const id of ids) {
      await waitFor(
        async () => {
          const run = (await app.inject({ method: 'GET', url: `/api/v1/runs/${id}` })).json()
          return run.status === 'done' ? run : undefined
        },
        { what: `run ${id} to be done` },
      )
    }
  }
  const runsStatistics = async (app: FastifyInstance) =>
    (
      await sql<{ n_dead_tup: number; last_vacuum: Date | null }>`
        select n_dead_tup::int, last_vacuum from pg_stat_user_tables
        where relname = 'runs'`.execute(app.baton.db)
    ).rows[0]!

  it('vacuums its runs as they are updated (BATON_EMBEDDED_VACUUM_MS)', async () => {
    const app = await createTestApp({ embeddedVacuumMs: 100 })
    try {
      await seedDemo(app.baton)
      await runsOf(app, 80)
      // A pass may come while the runs are still being updated, and their later updates
      // leave dead versions again: the next pass past the threshold takes those too.
      await expect
        .poll(
          async () => {
            const statistics = await runsStatistics(app)
            return statistics.last_vacuum !== null && statistics.n_dead_tup < 80
          },
          { timeout: 10_000 },
        )
        .toBe(true)
    } finally {
      await app.close()
    }
  })

  it('keeps every dead version with it off (0), as the embedded database alone does', async () => {
    const app = await createTestApp({ embeddedVacuumMs: 0 })
    try {
      await seedDemo(app.baton)
      await runsOf(app, 80)
      await expect
        .poll(async () => (await runsStatistics(app)).n_dead_tup, published)
        .toBeGreaterThanOrEqual(80)
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      expect((await runsStatistics(app)).last_vacuum).toBeNull()
    } finally {
      await app.close()
    }
  })
})
