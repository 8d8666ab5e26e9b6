import type { FastifyInstance } from 'fastify'
import { buildApp } from '../app'
import { type Settings, testSettings } from '../settings'

/**
 * An app on a fresh in-memory PGlite (or `settings.databaseUrl`), closed by `close()`.
 *
 * @example
 * const app = await createTestApp({ apiToken: 'a'.repeat(16) })
 */
export async function createTestApp(overrides: Partial<Settings> = {}): Promise<FastifyInstance> {
  const app = await buildApp({ settings: testSettings(overrides), logger: false })
  await app.ready()
  return app
}
