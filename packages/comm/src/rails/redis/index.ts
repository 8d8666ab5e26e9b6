export type { RedisConnectionOptions } from './connect-redis'
export { createRedisRail, type RedisRailOptions } from './create-redis-rail'
