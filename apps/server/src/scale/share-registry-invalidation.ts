import type { Redis } from 'ioredis'
import type { BatonServices } from '../services'

type Registry = BatonServices['registry']

export type SharedRegistry = Registry & { close(): Promise<void> }

const everything = '*'

/**
 * Keeps each process's registry cache its own, but invalidates it in every process: a change
 * or revocation in one process is published on `channel`, and every process drops that
 * wallet (or, after `clear()`, everything) from its cache.
 *
 * @example
 * const registry = await shareRegistryInvalidation(createDatabaseRegistry(agents), { publisher, subscriber, channel: 'baton:registry' })
 * registry.invalidate(wallet) // dropped here and in every other process
 */
export async function shareRegistryInvalidation(
  registry: Registry,
  options: { publisher: Redis; subscriber: Redis; channel: string },
): Promise<SharedRegistry> {
  options.subscriber.on('message', (channel: string, message: string) => {
    if (channel !== options.channel) return
    if (message === everything) registry.clear()
    else registry.invalidate(message)
  })
  await options.subscriber.subscribe(options.channel)
  const publish = (message: string) => {
    options.publisher.publish(options.channel, message).catch(() => {
      // Redis is down: other processes' caches expire by their TTL (30 s).
    })
  }
  return {
    ensureRegisteredAgent: (wallet, lookup) => registry.ensureRegisteredAgent(wallet, lookup),
    invalidate(wallet) {
      registry.invalidate(wallet)
      publish(String(wallet))
    },
    clear() {
      registry.clear()
      publish(everything)
    },
    async close() {
      await options.subscriber.unsubscribe(options.channel).catch(() => {})
    },
  }
}
