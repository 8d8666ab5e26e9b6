import { type Kysely, sql } from 'kysely'

/**
 * The files a run's steps leave behind (the screenshots of its `browser` and `display` tasks),
 * kept in the database on PGlite and PostgreSQL alike: a server with `DATABASE_URL` keeps
 * nothing on local disk, and every process of a scaled-out deployment serves every run's files.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('run_files')
    .addColumn('run_id', 'text', (column) =>
      column.notNull().references('runs.id').onDelete('cascade'),
    )
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('step_path', 'text', (column) => column.notNull())
    .addColumn('media_type', 'text', (column) => column.notNull())
    .addColumn('data', 'bytea', (column) => column.notNull())
    .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('run_files_pk', ['run_id', 'name'])
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('run_files').execute()
}
