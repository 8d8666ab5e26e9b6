import {
  ConclaveConflictError,
  type ConclaveEntry,
  ConclaveLimitError,
  type ConclaveLimits,
  type ConclaveStore,
  checkConclaveWrite,
  DEFAULT_CONCLAVE_LIMITS,
} from '@baton/mal'
import type { Redis } from 'ioredis'

// KEYS: entries (key → value JSON), meta (key → "version|updatedAt|writtenBy"), versions
// (key → last version, kept after a delete so a version is never reused).
const WRITE = `
local exists = redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1
local live = 0
if exists then live = tonumber(redis.call('HGET', KEYS[3], ARGV[1])) end
if ARGV[5] ~= '' and tonumber(ARGV[5]) ~= live then return {'conflict', live} end
if not exists then
  local count = redis.call('HLEN', KEYS[1])
  if count >= tonumber(ARGV[6]) then return {'limit', count} end
end
local version = redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], version .. '|' .. ARGV[4] .. '|' .. ARGV[3])
return {'ok', version}
`
const DELETE = `
local exists = redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1
local live = 0
if exists then live = tonumber(redis.call('HGET', KEYS[3], ARGV[1])) end
if ARGV[2] ~= '' and tonumber(ARGV[2]) ~= live then return {'conflict', live} end
if not exists then return {'ok', 0} end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return {'ok', 1}
`
const READ = `return {redis.call('HGET', KEYS[1], ARGV[1]), redis.call('HGET', KEYS[2], ARGV[1])}`

type ConclaveRedis = Redis & {
  conclaveWrite(...args: string[]): Promise<[string, number]>
  conclaveDelete(...args: string[]): Promise<[string, number]>
  conclaveRead(...args: string[]): Promise<[string | null, string | null]>
}

/**
 * The conclave in Redis, for servers that scale out: every write and delete is one Lua script,
 * so compare-and-set is atomic across every process on the same Redis. A keyspace's three
 * hashes share a hash tag (`{space}`), so they live on one node of a cluster too.
 *
 * @example
 * const conclave = createRedisConclave(new Redis(process.env.REDIS_URL))
 * await conclave.write(runId, 'draft', 'v1', { writtenBy: wallet, ifVersion: 0 })
 */
export function createRedisConclave(redis: Redis, limits: ConclaveLimits = {}): ConclaveStore {
  const bounds = { ...DEFAULT_CONCLAVE_LIMITS, ...limits }
  const client = redis as ConclaveRedis
  if (typeof client.conclaveWrite !== 'function') {
    redis.defineCommand('conclaveWrite', { numberOfKeys: 3, lua: WRITE })
    redis.defineCommand('conclaveDelete', { numberOfKeys: 3, lua: DELETE })
    redis.defineCommand('conclaveRead', { numberOfKeys: 2, lua: READ })
  }
  const keys = (space: string) => {
    const tag = `baton:conclave:{${space}}`
    return [`${tag}:entries`, `${tag}:meta`, `${tag}:versions`] as const
  }
  const refuse = (key: string, outcome: [string, number], expected: number | undefined) => {
    if (outcome[0] === 'conflict') {
      throw new ConclaveConflictError({ key, expected: expected ?? 0, actual: Number(outcome[1]) })
    }
    if (outcome[0] === 'limit') {
      throw new ConclaveLimitError({
        key,
        limit: 'the number of keys',
        max: bounds.maxKeys,
        actual: Number(outcome[1]) + 1,
      })
    }
  }
  return {
    async read(space, key) {
      const [entries, meta] = keys(space)
      const [value, about] = await client.conclaveRead(entries, meta, key)
      if (value === null || about === null) return null
      const [version, updatedAt, ...writer] = about.split('|')
      return {
        value: JSON.parse(value),
        writtenBy: writer.join('|'),
        version: Number(version),
        updatedAt: updatedAt!,
      } satisfies ConclaveEntry
    },
    async write(space, key, value, options) {
      const json = checkConclaveWrite(key, value, bounds)
      const updatedAt = new Date().toISOString()
      const outcome = await client.conclaveWrite(
        ...keys(space),
        key,
        json,
        options.writtenBy,
        updatedAt,
        options.ifVersion === undefined ? '' : String(options.ifVersion),
        String(bounds.maxKeys),
      )
      refuse(key, outcome, options.ifVersion)
      return {
        value: JSON.parse(json),
        writtenBy: options.writtenBy,
        version: Number(outcome[1]),
        updatedAt,
      }
    },
    async delete(space, key, options = {}) {
      const ifVersion = options.ifVersion === undefined ? '' : String(options.ifVersion)
      const outcome = await client.conclaveDelete(...keys(space), key, ifVersion)
      refuse(key, outcome, options.ifVersion)
      return Number(outcome[1]) === 1
    },
    async list(space) {
      const names = await redis.hkeys(keys(space)[0])
      return names.sort()
    },
    async expire(space, afterMs) {
      const all = keys(space)
      if (afterMs <= 0) {
        await redis.del(...all)
        return
      }
      await Promise.all(all.map((name) => redis.pexpire(name, afterMs)))
    },
  }
}
