import type { FastifyInstance } from 'fastify'
import { seedDemo } from '../seed/seed-demo'
import type { Settings } from '../settings'
import { createTestApp } from './test-app'

/** A test app serving real HTTP on 127.0.0.1, and how to reach and stop it. */
export interface ListeningTestApp {
  app: FastifyInstance
  /** The address it listens on, such as `http://127.0.0.1:40123`. */
  base: string
  /** Closes the app (and its database); safe to call once from `afterAll`. */
  close: () => Promise<void>
}

/**
 * A {@link createTestApp} app with the demo agents and swarms seeded (unless `seed: false`),
 * listening on a free port of 127.0.0.1: the set-up of the tests that talk to the server
 * over real HTTP.
 *
 * @example
 * let served: ListeningTestApp
 * beforeAll(async () => {
 *   served = await listenTestApp({ settings: { apiToken: 'a'.repeat(16) } })
 * })
 * afterAll(() => served.close())
 */
export async function listenTestApp(
  options: { settings?: Partial<Settings>; seed?: boolean } = {},
): Promise<ListeningTestApp> {
  const app = await createTestApp(options.settings)
  try {
    if (options.seed ?? true) await seedDemo(app.baton)
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    return { app, base, close: () => app.close() }
  } catch (error) {
    // A failed set-up would otherwise leave its database open until the worker ends.
    await app.close()
    throw error
  }
}
