import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { findPostgresBinaries, startPostgres } from '@baton/testing/postgres'
import { PGlite } from '@electric-sql/pglite'
import { Kysely } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import type { TestProject } from 'vitest/node'
import type { Database } from '../db/database'
import { migrate } from '../db/migrate'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throw-away PostgreSQL cluster of this test run ('' when there is none). */
    postgresUrl: string
    /** A migrated, empty PGlite data folder dump that test databases start from. */
    pgliteTemplate: string
  }
}

/**
 * Starts one throw-away PostgreSQL cluster for the server's tests (stopped after them).
 * Without the binaries the PostgreSQL runs are skipped, except under `CI=true`.
 */
export default async function setup(project: TestProject) {
  const template = await writePgliteTemplate()
  project.provide('pgliteTemplate', template.file)
  const bin = findPostgresBinaries()
  if (!bin) {
    if (process.env.CI === 'true') {
      throw new Error('PostgreSQL is required under CI=true: apt-get install -y postgresql')
    }
    console.warn('[server tests] PostgreSQL binaries not found: skipping the PostgreSQL runs.')
    project.provide('postgresUrl', '')
    return () => template.remove()
  }
  const cluster = await startPostgres(bin)
  project.provide('postgresUrl', cluster.url)
  return async () => {
    await cluster.stop()
    await template.remove()
  }
}

/** Migrates an in-memory PGlite once and dumps it, so each test database skips `initdb`. */
async function writePgliteTemplate() {
  const dir = await mkdtemp(path.join(tmpdir(), 'baton-pglite-template-'))
  const pglite = await PGlite.create()
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) })
  await migrate(db)
  const dump = await pglite.dumpDataDir('none')
  await db.destroy()
  const file = path.join(dir, 'template.tar')
  await writeFile(file, Buffer.from(await dump.arrayBuffer()))
  return { file, remove: () => rm(dir, { recursive: true, force: true }) }
}
