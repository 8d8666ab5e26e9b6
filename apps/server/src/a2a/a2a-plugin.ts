import type { FastifyPluginAsync } from 'fastify'

/**
 * Serves the Agent2Agent protocol for the agents this server hosts.
 * Not wired yet: registering it adds no routes.
 *
 * @example
 * await app.register(a2aPlugin)
 */
export const a2aPlugin: FastifyPluginAsync = async () => {}

// Routes registered by this plugin belong to the root app, not an encapsulated child.
Object.assign(a2aPlugin, { [Symbol.for('skip-override')]: true })
