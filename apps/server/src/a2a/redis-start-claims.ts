import { createHash, randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'

/** What `take` answers: the start is this process's, or another holds it with these parts. */
export type SharedClaim = { taken: true } | { heldWith: string }

/**
 * Claims on the starts of messages, shared by every process of a deployment (see
 * `TaskStarts`): of two copies of one message that reach two processes at the same moment,
 * before either has stored the task it starts, the one that takes the claim starts it.
 */
export type SharedStartClaims = {
  /**
   * Takes the start of the message `key` (its parts hashed as `parts`) for this process,
   * for as long as a process may take to store the task it started; when another process
   * holds it, the parts it holds it with. Throws when the deployment cannot say in time.
   */
  take(key: string, parts: string): Promise<SharedClaim>
  /** Lets the start of `key` go, if this process holds it (its request started no task). */
  free(key: string): Promise<void>
}

// Takes the key, or answers who holds it: one round trip either way.
const TAKE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('GET', KEYS[1])`
// Deletes the key only while it is this process's (its value starts with this token).
const FREE = `
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, #ARGV[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`

/**
 * Start claims in the deployment's Redis, one key per message (`<prefix>:a2a-start:<hash>`,
 * the hash of the caller's scope and the `messageId`), holding this process's token and the
 * message's parts hash. A claim lapses after `holdMs`: a process that died before storing
 * its task holds the message no longer than that. `client` should fail fast (no offline
 * queue, a command timeout): a claim Redis cannot answer in time is not made later.
 *
 * @example
 * const claims = createRedisStartClaims({ client, holdMs: 15_000 })
 * const held = await claims.take(key, partsHash) // { taken: true } or { heldWith }
 */
export function createRedisStartClaims(options: {
  client: Redis
  holdMs: number
  prefix?: string
}): SharedStartClaims {
  const { client, holdMs } = options
  const prefix = options.prefix ?? 'baton'
  const token = randomUUID()
  const keyOf = (key: string) =>
    `${prefix}:a2a-start:${createHash('sha256').update(key).digest('base64url')}`
  return {
    async take(key, parts) {
      const held = (await client.eval(TAKE, 1, keyOf(key), `${token}\n${parts}`, holdMs)) as
        | string
        | null
      if (held === null) return { taken: true }
      const [holder, heldWith = ''] = held.split('\n')
      // Its own claim, left by a request of this process whose task is stored by now.
      if (holder === token) return { taken: true }
      return { heldWith }
    },
    async free(key) {
      await client.eval(FREE, 1, keyOf(key), `${token}\n`)
    },
  }
}
