import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Scope } from '../auth/principal'
import type { Database } from './database'

/** Every key starts so: a reader of a log or a config file knows what it holds. */
export const API_KEY_PREFIX = 'baton_'

export type StoredApiKey = {
  id: string
  name: string
  scopes: Scope[]
  createdAt: string
  revokedAt: string | null
}

const digest = (key: string) => createHash('sha256').update(key).digest('hex')

function toKey(row: {
  id: string
  name: string
  scopes: string
  created_at: Date
  revoked_at: Date | null
}): StoredApiKey {
  return {
    id: row.id,
    name: row.name,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: new Date(row.created_at).toISOString(),
    revokedAt: row.revoked_at ? new Date(row.revoked_at).toISOString() : null,
  }
}

/**
 * API keys: made with a name and scopes, kept as sha256 digests (a random 32-byte key has
 * no use for a slow hash), found by the key a request presents, revoked by id.
 *
 * @example
 * const { key } = await createApiKeysRepository(db).create({ name: 'ci', scopes: ['read', 'run'] })
 */
export function createApiKeysRepository(db: Kysely<Database>) {
  return {
    /** Makes a key; the answer holds the only copy of `key` there will ever be. */
    async create(input: {
      name: string
      scopes: Scope[]
    }): Promise<{ apiKey: StoredApiKey; key: string }> {
      const id = randomUUID()
      const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`
      const row = await db
        .insertInto('api_keys')
        .values({
          id,
          name: input.name,
          key_hash: digest(key),
          scopes: JSON.stringify([...new Set(input.scopes)]),
        })
        .returningAll()
        .executeTakeFirstOrThrow()
      return { apiKey: toKey(row), key }
    },

    /** The live key `key` is, or undefined. */
    async findByKey(key: string): Promise<StoredApiKey | undefined> {
      const row = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('key_hash', '=', digest(key))
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return row ? toKey(row) : undefined
    },

    async list(): Promise<StoredApiKey[]> {
      const rows = await db.selectFrom('api_keys').selectAll().orderBy('created_at').execute()
      return rows.map(toKey)
    },

    /** True when at least one key is live (then reads are private by default). */
    async anyLive(): Promise<boolean> {
      const row = await db
        .selectFrom('api_keys')
        .select('id')
        .where('revoked_at', 'is', null)
        .limit(1)
        .executeTakeFirst()
      return row !== undefined
    },

    /**
     * Revokes one key: the live key with this id, else the one with this name (a name may look
     * like another key's id); false when no live key has it.
     */
    async revoke(idOrName: string): Promise<boolean> {
      for (const column of ['id', 'name'] as const) {
        const result = await db
          .updateTable('api_keys')
          .set({ revoked_at: new Date() })
          .where(column, '=', idOrName)
          .where('revoked_at', 'is', null)
          .executeTakeFirst()
        if (Number(result.numUpdatedRows) > 0) return true
      }
      return false
    },
  }
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>
