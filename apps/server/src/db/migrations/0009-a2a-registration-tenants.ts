import { type Kysely, sql } from 'kysely'

/**
 * A2A tasks were kept under the hosted agent's id, which a revoked agent leaves for anyone to
 * register again; they are now kept under `<agent id>#<registration>` (the id of the agent's
 * latest `register` history entry). Tasks of each live agent updated since it was registered
 * move under its registration; those of earlier registrations of the id stay under the bare
 * id, which no endpoint serves any more.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // 0002 may run after this one (unordered migrations), on an empty table then.
  const tables = await db.introspection.getTables()
  if (!tables.some((table) => table.name === 'a2a_tasks')) return
  await sql`
    update a2a_tasks as task
    set tenant = task.tenant || '#' || registration.id
    from (
      select agents.id as agent_id, max(history.id) as id, max(history.at) as registered_at
      from agents
      join agent_history as history
        on history.wallet = agents.wallet and history.change = 'register'
      where agents.revoked_at is null
      group by agents.id
    ) as registration
    where task.tenant = registration.agent_id
      and task.status_last_updated >= extract(epoch from registration.registered_at) * 1000
  `.execute(db)
}
