import type { Kysely } from 'kysely'
import type { Database } from './database'

export type SavedPlan = { id: string; name: string; source: string; createdAt: string }

/**
 * Saved MAL plans (their YAML or JSON source, as written).
 *
 * @example
 * await createPlansRepository(db).save({ id: 'triage', name: 'Triage', source: yaml })
 */
export function createPlansRepository(db: Kysely<Database>) {
  const toPlan = (row: { id: string; name: string; source: string; created_at: Date }) => ({
    id: row.id,
    name: row.name,
    source: row.source,
    createdAt: new Date(row.created_at).toISOString(),
  })
  return {
    /** Stores the plan, keeping an existing one of the same id (seeding is idempotent). */
    async save(plan: { id: string; name: string; source: string }): Promise<boolean> {
      const result = await db
        .insertInto('plans')
        .values(plan)
        .onConflict((conflict) => conflict.column('id').doNothing())
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
    },
    async find(id: string): Promise<SavedPlan | undefined> {
      const row = await db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst()
      return row ? toPlan(row) : undefined
    },
    async list(): Promise<SavedPlan[]> {
      const rows = await db.selectFrom('plans').selectAll().orderBy('id').execute()
      return rows.map(toPlan)
    },
  }
}

export type PlansRepository = ReturnType<typeof createPlansRepository>
