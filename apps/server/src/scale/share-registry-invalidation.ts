import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { BatonServices } from '../services'

type Registry = BatonServices['registry']

/** What else than the registry is cached per process and dropped when another process changes it: a handler per topic, given the changed key. */
export type InvalidationTopics = Record<string, (key: string) => void>

export type SharedRegistry = Registry & {
  /**
   * Tells every other process that `key` of `topic` changed (this process has dropped or
   * updated its own copy already). Resolves once Redis has taken the message, after
   * `timeoutMs` when it does not answer, and at once when it is not connected.
   */
  announce(topic: string, key: string): Promise<void>
  close(): Promise<void>
}

const everything = '*'
// A topic's message: `#<topic> <origin> <key>` (a wallet never starts with '#').
const topicMark = '#'

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
  options: {
    publisher: Redis
    subscriber: Redis
    channel: string
    topics?: InvalidationTopics
    /** How long `announce` waits for Redis (default 1 s). */
    timeoutMs?: number
  },
): Promise<SharedRegistry> {
  // This process's own announcements come back to it: they are not for it.
  const origin = randomUUID()
  options.subscriber.on('message', (channel: string, message: string) => {
    if (channel !== options.channel) return
    if (message.startsWith(topicMark)) {
      const [topic = '', from, ...key] = message.slice(1).split(' ')
      if (from !== origin) options.topics?.[topic]?.(key.join(' '))
      return
    }
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
    async announce(topic, key) {
      // Redis away: nothing to wait for (other processes' copies expire by their TTL).
      if (options.publisher.status !== 'ready') return
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        options.publisher
          .publish(options.channel, `${topicMark}${topic} ${origin} ${key}`)
          .catch(() => {
            // Redis is down: other processes' copies expire by their TTL.
          }),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, options.timeoutMs ?? 1_000)
          timer.unref()
        }),
      ]).finally(() => clearTimeout(timer))
    },
    async close() {
      await options.subscriber.unsubscribe(options.channel).catch(() => {})
    },
  }
}
