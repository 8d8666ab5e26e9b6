import Fastify from 'fastify'
import type { StartedServer } from './types'

/**
 * The HTTP baseline: fastify's hello-world, nothing else.
 *
 * @example
 * const server = await startFastifyHello() // GET {server.url}/ → { hello: 'world' }
 */
export async function startFastifyHello(): Promise<StartedServer> {
  const app = Fastify({ logger: false })
  app.get('/', async () => ({ hello: 'world' }))
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  return { url, paths: { hello: '/' }, close: () => app.close() }
}
