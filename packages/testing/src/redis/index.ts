export {
  hasRedis,
  installRedis,
  type RedisServer,
  runRedisTests,
  type StartRedisServerOptions,
  startRedisServer,
} from './start-redis-server'
