import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { BatonServices } from '../services'

type Registry = BatonServices['registry']

/**
 * What else than the registry is cached per process and dropped when another process changes
 * it: a handler per topic, given the changed key, or no key when anything may have changed (an
 * announcement may have been lost while Redis was away): then it drops every copy.
 */
export type InvalidationTopics = Record<string, (key?: string) => void>

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
 * wallet (or, after `clear()`, everything: the registry and every topic's copies) from its
 * cache.
 *
 * An announcement made while Redis is away is lost, and so is one published while a
 * process's subscriber is away, so neither side trusts its copies through an outage: while
 * this process's subscriber is away it drops everything at once and then every
 * `awayDropMs` (a copy lives no longer than that), and again once it is subscribed anew;
 * a process that could not announce a change announces `everything` once its publisher is
 * back. The copies' own lifetimes (30 s) stay the bound only for what Redis took and lost.
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
    /** While the subscriber is away, how often everything cached is dropped (default 1 s). */
    awayDropMs?: number
  },
): Promise<SharedRegistry> {
  const { publisher, subscriber, channel } = options
  // This process's own announcements come back to it: they are not for it.
  const origin = randomUUID()
  const dropEverything = () => {
    registry.clear()
    for (const drop of Object.values(options.topics ?? {})) drop()
  }
  subscriber.on('message', (from: string, message: string) => {
    if (from !== channel) return
    if (message.startsWith(topicMark)) {
      const [topic = '', sender, ...key] = message.slice(1).split(' ')
      if (sender !== origin) options.topics?.[topic]?.(key.join(' '))
      return
    }
    if (message === everything) dropEverything()
    else registry.invalidate(message)
  })
  await subscriber.subscribe(channel)

  // Deaf: what other processes announce now is lost to this one.
  let deaf: NodeJS.Timeout | undefined
  let closed = false
  const onSubscriberClose = () => {
    if (deaf || closed) return
    dropEverything()
    deaf = setInterval(dropEverything, options.awayDropMs ?? 1_000)
    deaf.unref()
  }
  const onSubscriberReady = () => {
    if (!deaf) return
    // Subscribed anew (ioredis does it too; this one is awaited), then what was kept while
    // deaf, or read just before, is dropped.
    subscriber.subscribe(channel).then(
      () => {
        clearInterval(deaf)
        deaf = undefined
        dropEverything()
      },
      () => {
        // Away again: its close starts over.
      },
    )
  }
  subscriber.on('close', onSubscriberClose)
  subscriber.on('ready', onSubscriberReady)

  // Mute: a change of this process went unannounced; everyone drops everything once it can.
  let mute = false
  const onPublisherReady = () => {
    if (!mute) return
    mute = false
    publisher.publish(channel, everything).catch(() => {
      mute = true
    })
  }
  publisher.on('ready', onPublisherReady)
  const publish = (message: string) => {
    if (publisher.status !== 'ready') {
      mute = true
      return undefined
    }
    return publisher.publish(channel, message).then(
      () => {},
      () => {
        // It may not have reached Redis: announced again as everything once it is back.
        mute = true
      },
    )
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
      const published = publish(`${topicMark}${topic} ${origin} ${key}`)
      // Redis away: nothing to wait for (it is announced as everything once Redis is back).
      if (!published) return
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        published,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, options.timeoutMs ?? 1_000)
          timer.unref()
        }),
      ]).finally(() => clearTimeout(timer))
    },
    async close() {
      closed = true
      clearInterval(deaf)
      deaf = undefined
      subscriber.off('close', onSubscriberClose)
      subscriber.off('ready', onSubscriberReady)
      publisher.off('ready', onPublisherReady)
      await subscriber.unsubscribe(channel).catch(() => {})
    },
  }
}
