import { redactUrl } from '@baton/core'
import type { Redis } from 'ioredis'
import { TransportError } from '../transport-error'

/** Either a Redis URL (the caller's connection is made and closed here) or a client to borrow. */
export type RedisConnectionOptions = { url: string; redis?: never } | { redis: Redis; url?: never }

/**
 * Opens (or borrows) a Redis connection. ioredis is loaded only here, so bundles that never
 * use the Redis rail do not carry it.
 *
 * @example
 * const { client, owned } = await connectRedis({ url: 'redis://127.0.0.1:6379' }, 'redis')
 */
export async function connectRedis(
  options: RedisConnectionOptions,
  what: string,
): Promise<{ client: Redis; owned: boolean }> {
  if (options.redis) return { client: options.redis, owned: false }
  const module = await import('ioredis')
  const RedisClient = (module.Redis ?? module.default) as typeof Redis
  const client = new RedisClient(options.url, { lazyConnect: true, maxRetriesPerRequest: 3 })
  // ioredis reconnects by itself; without a listener, a dropped connection would crash the process.
  client.on('error', () => {})
  try {
    await client.connect()
  } catch (error) {
    client.disconnect()
    throw new TransportError({
      transport: what,
      message: `cannot connect to ${redactUrl(options.url)}`,
      cause: error,
    })
  }
  return { client, owned: true }
}
