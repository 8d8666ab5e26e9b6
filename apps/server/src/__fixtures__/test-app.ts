import { readFile } from 'node:fs/promises'
import type { FastifyInstance } from 'fastify'
import { inject } from 'vitest'
import { buildApp } from '../app'
import { type Settings, testSettings } from '../settings'

/**
 * An app on a fresh in-memory PGlite (or `settings.databaseUrl`), closed by `close()`.
 *
 * @example
 * const app = await createTestApp({ apiToken: 'a'.repeat(16) })
 */
export async function createTestApp(overrides: Partial<Settings> = {}): Promise<FastifyInstance> {
  const app = await buildApp({
    settings: testSettings(overrides),
    logger: false,
    pgliteTemplate: await pgliteTemplate(),
  })
  await app.ready()
  return app
}

/** The migrated PGlite dump the global setup wrote (undefined outside the test run). */
export async function pgliteTemplate(): Promise<Blob | undefined> {
  const file = inject('pgliteTemplate')
  return file ? new Blob([await readFile(file)]) : undefined
}
