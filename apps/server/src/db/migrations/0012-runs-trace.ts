import type { Kysely } from 'kysely'

/**
 * The trace a run belongs to (OpenTelemetry): its trace id, shown with the run, and the W3C
 * `traceparent` of the attempt that executes it, so an attempt that takes the run over links
 * its span to the one before (which a killed process never ended).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('runs')
    .addColumn('trace_id', 'text')
    .addColumn('trace_parent', 'text')
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('runs').dropColumn('trace_id').dropColumn('trace_parent').execute()
}
