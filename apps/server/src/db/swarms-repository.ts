import { AgentSwarm } from '@baton/core'
import type { Kysely } from 'kysely'
import type { Database } from './database'

/**
 * Swarms, stored as their validated record.
 *
 * @example
 * await createSwarmsRepository(db).save(swarm)
 */
export function createSwarmsRepository(db: Kysely<Database>) {
  return {
    /** Stores `swarm`; false when its id is taken. */
    async insert(swarm: AgentSwarm): Promise<boolean> {
      const result = await db
        .insertInto('swarms')
        .values({ id: swarm.id, record: JSON.stringify(swarm) })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
    },
    async find(id: string): Promise<AgentSwarm | undefined> {
      const row = await db
        .selectFrom('swarms')
        .select('record')
        .where('id', '=', id)
        .executeTakeFirst()
      return row ? AgentSwarm.parse(row.record) : undefined
    },
    async list(): Promise<AgentSwarm[]> {
      const rows = await db.selectFrom('swarms').select('record').orderBy('created_at').execute()
      return rows.map((row) => AgentSwarm.parse(row.record))
    },
  }
}

export type SwarmsRepository = ReturnType<typeof createSwarmsRepository>
