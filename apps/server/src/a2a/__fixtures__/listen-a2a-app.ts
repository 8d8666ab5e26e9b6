import type { MessageBus } from '@baton/comm'
import Fastify, { type FastifyInstance } from 'fastify'
import { createA2APlugin } from '../a2a-plugin'
import { type A2AServices, a2aServicesFrom } from '../a2a-services'
import type { TestServices } from './a2a-test-services'

/**
 * A fastify app with only the A2A plugin, over the test services' database and agents (its
 * hosted agents run by `runHostedAgent`, the services' stand-in by default) and `bus`,
 * listening on 127.0.0.1 and a port the system picks; `base` is its URL.
 *
 * @example
 * const { app, base } = await listenA2AApp({ services, bus })
 */
export async function listenA2AApp(options: {
  services: TestServices
  bus: MessageBus
  runHostedAgent?: A2AServices['runHostedAgent']
}): Promise<{ app: FastifyInstance; base: string }> {
  const { services, bus } = options
  const app = Fastify()
  const a2a = a2aServicesFrom({
    settings: { apiToken: undefined },
    db: services.db,
    repositories: { agents: { findById: services.findAgent, list: async () => ({ agents: [] }) } },
    agentHost: { runHostedAgent: options.runHostedAgent ?? services.runHostedAgent },
    bus,
  })
  await app.register(createA2APlugin(a2a))
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base }
}
