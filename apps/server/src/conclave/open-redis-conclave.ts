import type { ConclaveLimits, ConclaveStore } from '@baton/mal'
import type { FastifyBaseLogger } from 'fastify'
import { Redis } from 'ioredis'
import { logRedisOutages } from '../health/log-redis-outages'
import { createRedisConclave } from './create-redis-conclave'

/** The Redis conclave of one process and the connection it holds. */
export type OpenedRedisConclave = {
  conclave: ConclaveStore
  /** Closes the conclave's connection (at shutdown, after the last run). */
  close(): Promise<void>
}

/**
 * Connects this process to the deployment's Redis for the conclave, so every process of a
 * scale-out shares one keyspace per run. It has a connection of its own: a conclave script
 * never waits behind the queue's or the rail's blocking reads. While Redis is down its
 * commands wait for it to come back, as the queue's do, rather than fail the step.
 *
 * @example
 * const { conclave, close } = await openRedisConclave({ url: settings.redisUrl, logger })
 */
export async function openRedisConclave(options: {
  url: string
  logger: FastifyBaseLogger
  /** The connection's name in Redis (`CLIENT LIST`), e.g. after the process. */
  name?: string
  limits?: ConclaveLimits
}): Promise<OpenedRedisConclave> {
  const redis = new Redis(options.url, {
    maxRetriesPerRequest: null,
    lazyConnect: true,
    ...(options.name ? { connectionName: options.name } : {}),
  })
  logRedisOutages(redis, { logger: options.logger, what: 'conclave', url: options.url })
  await redis.connect()
  return {
    conclave: createRedisConclave(redis, options.limits),
    async close() {
      // QUIT lets replies in flight arrive; to a Redis that is down it would wait for ever.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect())
      else redis.disconnect()
    },
  }
}
