import { AgentSwarm } from '@baton/core'
import { type Kysely, sql } from 'kysely'
import { changeWhileUnchanged } from './change-while-unchanged'
import type { Database } from './database'

/** A stored swarm and the principal that owns it (may change or delete it). */
export type OwnedSwarm = { swarm: AgentSwarm; owner: string }

/**
 * Swarms, stored as their validated record, each with its owner.
 *
 * @example
 * await createSwarmsRepository(db).insert(swarm, request.principal.id)
 */
export function createSwarmsRepository(db: Kysely<Database>) {
  return {
    /** Stores `swarm` for `owner` (default `anonymous`); false when its id is taken. */
    async insert(swarm: AgentSwarm, owner = 'anonymous'): Promise<boolean> {
      const result = await db
        .insertInto('swarms')
        .values({ id: swarm.id, record: JSON.stringify(swarm), owner })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
    },
    async find(id: string): Promise<AgentSwarm | undefined> {
      return (await this.findOwned(id))?.swarm
    },
    /** The swarm with its owner, or undefined. */
    async findOwned(id: string): Promise<OwnedSwarm | undefined> {
      const row = await db
        .selectFrom('swarms')
        .select(['record', 'owner'])
        .where('id', '=', id)
        .executeTakeFirst()
      return row ? { swarm: AgentSwarm.parse(row.record), owner: row.owner } : undefined
    },
    async list(): Promise<AgentSwarm[]> {
      const rows = await db.selectFrom('swarms').select('record').orderBy('created_at').execute()
      return rows.map((row) => AgentSwarm.parse(row.record))
    },
    /**
     * Changes the stored swarm `id` to what `apply` makes of it, and answers that (undefined
     * when none exists), on the record as it is when written (`changeWhileUnchanged`):
     * concurrent changes of different fields all stay.
     */
    async change(
      id: string,
      apply: (current: AgentSwarm) => AgentSwarm | Promise<AgentSwarm>,
    ): Promise<AgentSwarm | undefined> {
      return changeWhileUnchanged({
        what: 'swarm',
        id,
        read: async () =>
          (await db.selectFrom('swarms').select('record').where('id', '=', id).executeTakeFirst())
            ?.record,
        apply: (record) => apply(AgentSwarm.parse(record)),
        write: async (changed, record) => {
          const result = await db
            .updateTable('swarms')
            .set({ record: JSON.stringify(changed) })
            .where('id', '=', id)
            .where('record', '=', sql<Record<string, unknown>>`${JSON.stringify(record)}::jsonb`)
            .executeTakeFirst()
          return Number(result.numUpdatedRows) > 0
        },
      })
    },
    /** Replaces the stored record of `swarm.id` (its owner stays); false when none exists. */
    async update(swarm: AgentSwarm): Promise<boolean> {
      const result = await db
        .updateTable('swarms')
        .set({ record: JSON.stringify(swarm) })
        .where('id', '=', swarm.id)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },
    /** Deletes the swarm; runs of it keep the copy they started with. False when none exists. */
    async remove(id: string): Promise<boolean> {
      const result = await db.deleteFrom('swarms').where('id', '=', id).executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },
  }
}

export type SwarmsRepository = ReturnType<typeof createSwarmsRepository>
