import pg from 'pg'
import { inject } from 'vitest'
import type { Settings } from '../settings'

export type Backend = 'pglite' | 'postgres'

/** The databases the route and repository tests run on: PGlite, and PostgreSQL when there is one. */
export const backends: Backend[] = inject('postgresUrl') ? ['pglite', 'postgres'] : ['pglite']

let count = 0

/**
 * Settings for a fresh database on `backend`: in-memory PGlite, or a new database in the
 * test run's PostgreSQL cluster.
 *
 * @example
 * const app = await createTestApp(await databaseSettings('postgres'))
 */
export async function databaseSettings(backend: Backend): Promise<Partial<Settings>> {
  if (backend === 'pglite') return {}
  const url = inject('postgresUrl')
  const name = `baton_test_${process.pid}_${Date.now()}_${count++}`
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`create database ${name}`)
  } finally {
    await client.end()
  }
  const databaseUrl = new URL(url)
  databaseUrl.pathname = `/${name}`
  return { databaseUrl: databaseUrl.toString() }
}
