import type { TestProject } from 'vitest/node'
import { findPostgresBinaries, startPostgres } from './postgres'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throw-away PostgreSQL cluster of this test run ('' when there is none). */
    postgresUrl: string
  }
}

/**
 * Starts one throw-away PostgreSQL cluster for the server's tests (stopped after them).
 * Without the binaries the PostgreSQL runs are skipped, except under `CI=true`.
 */
export default async function setup(project: TestProject) {
  const bin = findPostgresBinaries()
  if (!bin) {
    if (process.env.CI === 'true') {
      throw new Error('PostgreSQL is required under CI=true: apt-get install -y postgresql')
    }
    console.warn('[server tests] PostgreSQL binaries not found: skipping the PostgreSQL runs.')
    project.provide('postgresUrl', '')
    return
  }
  const cluster = await startPostgres(bin)
  project.provide('postgresUrl', cluster.url)
  return () => cluster.stop()
}
