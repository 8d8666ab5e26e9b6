export { type BullmqQueueOptions, createBullmqQueue } from './create-bullmq-queue'
export {
  createRedisRunNotifier,
  type RedisRunNotifier,
  type RedisRunNotifierOptions,
} from './create-redis-run-notifier'
export { createScaleOut, type ScaleOut } from './create-scale-out'
export { type SharedRegistry, shareRegistryInvalidation } from './share-registry-invalidation'
