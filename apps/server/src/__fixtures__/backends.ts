import { createDatabase } from '@baton/testing/postgres'
import { inject } from 'vitest'
import type { Settings } from '../settings'

export type Backend = 'pglite' | 'postgres'

/** The databases the route and repository tests run on: PGlite, and PostgreSQL when there is one. */
export const backends: Backend[] = inject('postgresUrl') ? ['pglite', 'postgres'] : ['pglite']

/**
 * Settings for a fresh database on `backend`: in-memory PGlite, or a new database in the
 * test run's PostgreSQL cluster.
 *
 * @example
 * const app = await createTestApp(await databaseSettings('postgres'))
 */
export async function databaseSettings(backend: Backend): Promise<Partial<Settings>> {
  if (backend === 'pglite') return {}
  return { databaseUrl: await createDatabase(inject('postgresUrl')) }
}
