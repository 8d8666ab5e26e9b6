import type { Kysely } from 'kysely'
import type { Database } from './database'

export type RuntimeSecretsRepository = {
  /**
   * The secret stored under `name`, storing `made()` first if there is none; of several
   * processes claiming at once, every one gets the first value stored.
   */
  claim(name: string, made: () => string): Promise<string>
}

/**
 * Secrets the runtime made for itself (the development runtime key on PostgreSQL).
 *
 * @example
 * const key = await createRuntimeSecretsRepository(db).claim('runtime-key', generateReceiptKey)
 */
export function createRuntimeSecretsRepository(db: Kysely<Database>): RuntimeSecretsRepository {
  const read = async (name: string) =>
    (
      await db
        .selectFrom('runtime_secrets')
        .select('value')
        .where('name', '=', name)
        .executeTakeFirst()
    )?.value
  return {
    async claim(name, made) {
      const stored = await read(name)
      if (stored !== undefined) return stored
      await db
        .insertInto('runtime_secrets')
        .values({ name, value: made() })
        .onConflict((conflict) => conflict.column('name').doNothing())
        .execute()
      const claimed = await read(name)
      if (claimed === undefined) throw new Error(`the runtime secret "${name}" was not stored`)
      return claimed
    },
  }
}
