import {
  createMessageBus,
  createRedisLoopGuard,
  createRedisRail,
  type MessageBus,
} from '@baton/comm'
import type { FastifyBaseLogger } from 'fastify'
import { Redis, type RedisOptions } from 'ioredis'
import { logRedisOutages } from '../health/log-redis-outages'
import { problemWithin } from '../health/problem-within'
import type { RunQueue } from '../queue'
import type { BatonServices } from '../services'
import type { Settings } from '../settings'
import { createBullmqQueue } from './create-bullmq-queue'
import { createRedisRunNotifier, type RedisRunNotifier } from './create-redis-run-notifier'
import {
  type InvalidationTopics,
  type SharedRegistry,
  shareRegistryInvalidation,
} from './share-registry-invalidation'

/** The shared parts of one process of many (see docs/scaling-server.md). */
export type ScaleOut = {
  queue: RunQueue
  notifier: RedisRunNotifier
  bus: MessageBus
  /**
   * Wraps this process's registry so an invalidation reaches every process; `topics` are the
   * other caches dropped when another process announces a change of theirs.
   */
  shareRegistry(
    registry: BatonServices['registry'],
    topics?: InvalidationTopics,
  ): Promise<SharedRegistry>
  /** Why Redis does not answer a PING within `timeoutMs`, or undefined when it does. */
  redisProblem(timeoutMs: number): Promise<string | undefined>
  close(): Promise<void>
}

const prefix = 'baton'

/**
 * Connects a server process to the deployment's Redis: the BullMQ run queue (taking jobs
 * unless `BATON_ROLE=api`), the Redis rail and Redis loop guard for the bus, run events
 * published through Redis, and registry invalidations shared by every process.
 *
 * @example
 * const scale = await createScaleOut(settings, logger) // settings.redisUrl is set
 * const bus = scale.bus
 */
export async function createScaleOut(
  settings: Settings & { redisUrl: string },
  logger: FastifyBaseLogger,
): Promise<ScaleOut> {
  const url = settings.redisUrl
  const connections: Redis[] = []
  // No retry limit: while Redis is down, commands wait for it to come back (BullMQ needs this).
  const patient: RedisOptions = { maxRetriesPerRequest: null, lazyConnect: true }
  // On the request path: while Redis is down a command fails at once (no offline queue, none
  // sent again after a reconnect), and one that gets no answer fails after the bound, so a
  // request never waits long and nothing it gave up on is done later.
  const failFast: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: settings.redisTimeoutMs,
  }
  const connect = (options: RedisOptions = patient) => {
    const client = new Redis(url, options)
    logRedisOutages(client, { logger, what: 'scale-out', url })
    connections.push(client)
    return client
  }
  // Publishes (run notices, registry invalidations) made in one turn of the event loop, by
  // every run and request of that turn, go to Redis as one write.
  const main = connect({ ...patient, enableAutoPipelining: true })
  await main.connect()
  const subscriber = connect()
  await subscriber.connect()
  const requests = connect(failFast)
  // The rail's blocking reader and the loop guard's subscriber are duplicates: they wait.
  requests.duplicate = (override) => connect({ ...patient, ...override })
  await requests.connect()

  const queue = createBullmqQueue({
    connection: requests,
    // Made here, not as `main.duplicate()`: BullMQ does not close a connection it is given,
    // and a duplicate had neither the error listener nor a place in what `close` disconnects.
    workerConnection: connect(),
    addTimeoutMs: settings.redisTimeoutMs,
    concurrency: settings.workerConcurrency,
    leaseMs: settings.leaseMs,
    work: settings.role !== 'api',
    onError: (error) => logger.warn({ err: error }, 'run queue error'),
  })
  const notifier = await createRedisRunNotifier({
    publisher: main,
    subscriber,
    channel: `${prefix}:run-events`,
    origin: settings.workerName,
  })
  const loopGuard = createRedisLoopGuard({ redis: requests, prefix, maxHops: 8 })
  const bus = createMessageBus({
    transport: createRedisRail({
      redis: requests,
      prefix,
      consumer: settings.workerName,
      blockMs: 500,
      onError: (error) => logger.warn({ err: error }, 'Redis rail read failed'),
    }),
    loopGuard,
  })
  const registries: { close(): Promise<void> }[] = []

  return {
    queue,
    notifier,
    bus,
    async shareRegistry(registry, topics) {
      const shared = await shareRegistryInvalidation(registry, {
        publisher: main,
        subscriber,
        channel: `${prefix}:registry`,
        ...(topics ? { topics } : {}),
        timeoutMs: settings.redisTimeoutMs,
      })
      registries.push(shared)
      return shared
    },
    redisProblem(timeoutMs) {
      return problemWithin(async () => {
        // Commands wait for Redis while it is away; the state tells at once. Where Redis is, is
        // in the log ("Redis unreachable"), not in an answer anyone may read.
        if (main.status !== 'ready') return `not connected (${main.status})`
        await main.ping()
        return undefined
      }, timeoutMs)
    },
    async close() {
      await notifier.close()
      for (const registry of registries) await registry.close()
      await loopGuard.close()
      for (const client of connections) client.disconnect()
    },
  }
}
