import { type Kysely, sql } from 'kysely'

/**
 * Full-text search over agents: a stored `tsvector` of name and id (weight A), capabilities
 * (B), description and card text (C) and card examples (D), kept up to date by PostgreSQL
 * itself (a generated column), with a GIN index. Works the same on PGlite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table agents add column search tsvector generated always as (
      setweight(to_tsvector('english', coalesce(record->>'name', '') || ' ' || coalesce(record->>'id', '')), 'A') ||
      setweight(to_tsvector('english', coalesce(record->>'capabilities', '')), 'B') ||
      setweight(to_tsvector('english',
        coalesce(record->>'description', '') || ' ' ||
        coalesce(record#>>'{agentCard,tagline}', '') || ' ' ||
        coalesce(record#>>'{agentCard,capabilityDescription}', '')), 'C') ||
      setweight(to_tsvector('english', coalesce(record#>>'{agentCard,examples}', '')), 'D')
    ) stored
  `.execute(db)
  await sql`create index agents_search on agents using gin (search)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists agents_search`.execute(db)
  await sql`alter table agents drop column if exists search`.execute(db)
}
