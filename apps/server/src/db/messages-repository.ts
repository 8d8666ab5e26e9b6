import type { Envelope, Escalation } from '@baton/comm'
import { OldestFirst } from '@baton/core'
import { type Kysely, sql } from 'kysely'
import type { Database } from './database'
import type { GroupCommit, WriteChannel } from './group-commit'
import { jsonTable } from './json-rows'

const MESSAGES = jsonTable<{ id: string; correlation_id: string; envelope: Envelope }>('messages', {
  id: 'text',
  correlation_id: 'text',
  envelope: 'jsonb',
})

// Each envelope once, by its id, as sent: one stored before the bus took it is marked sent.
function insertEnvelopes(envelopes: Envelope[]) {
  const byId = new Map(envelopes.map((envelope) => [envelope.id, envelope]))
  const rows = [...byId.values()].map((envelope) => ({
    id: envelope.id,
    correlation_id: envelope.correlationId,
    envelope,
  }))
  return MESSAGES.insert(
    rows,
    sql`on conflict (id) do update set sent = true where messages.sent = false`,
  )
}

/** Envelopes the bus reported, stored (or marked sent) in one statement per turn of the group commit. */
const envelopeRecords: WriteChannel<Envelope> = {
  name: 'bus envelopes',
  async store(executor, envelopes) {
    await insertEnvelopes(envelopes).execute(executor)
  },
  statement: (_db, envelopes) => insertEnvelopes(envelopes),
}

/**
 * Bus envelopes (by conversation) and escalations, as the bus reports them.
 *
 * @example
 * await createMessagesRepository(db).conversation('corr_1')
 */
export function createMessagesRepository(db: Kysely<Database>, writer?: GroupCommit) {
  // Owners never change once claimed: remembered (a bounded number) for the live stream's filter.
  const owners = new Map<string, string>()
  const remember = (correlationId: string, owner: string) => {
    if (owners.size >= 10_000) owners.clear()
    owners.set(correlationId, owner)
    return owner
  }
  // Ids of the envelopes this process stored last (oldest dropped first), and whether each is
  // stored as sent.
  const justStored = new Map<string, boolean>()
  const oldestStored = new OldestFirst(justStored)
  const rememberStored = (id: string, sent: boolean) => {
    justStored.set(id, sent)
    oldestStored.trimTo(1_000)
  }
  return {
    /**
     * Records `owner` as the owner of the conversation unless it has one; answers the owner
     * it has (the caller's when it is new).
     */
    async claimConversation(correlationId: string, owner: string): Promise<string> {
      // A new conversation (the common case) is claimed in one statement; only a taken one
      // asks who holds it.
      const claimed = await db
        .insertInto('conversation_owners')
        .values({ correlation_id: correlationId, owner })
        .onConflict((conflict) => conflict.column('correlation_id').doNothing())
        .returning('owner')
        .executeTakeFirst()
      if (claimed) return remember(correlationId, claimed.owner)
      return (await this.conversationOwner(correlationId)) ?? owner
    },
    /**
     * Claims the envelope's conversation for `owner` unless it has one, and stores the envelope
     * (once, by id, as not yet sent: see `save`) when the conversation is `owner`'s or
     * `anyOwner` (an admin may write into any): both in one statement, the one in front of the
     * message's delivery. Answers the
     * conversation's owner and whether this call stored the envelope; nothing is stored in a
     * conversation that is someone else's.
     */
    async claimAndSave(
      envelope: Envelope,
      owner: string,
      options: { anyOwner: boolean },
    ): Promise<{ owner: string; stored: boolean }> {
      const correlationId = envelope.correlationId
      const known = owners.get(correlationId)
      const mayWrite = (held: string) => held === owner || options.anyOwner
      if (known) return { owner: known, stored: mayWrite(known) && (await this.save(envelope)) }
      if (justStored.has(envelope.id)) {
        return { owner: await this.claimConversation(correlationId, owner), stored: false }
      }
      // `held` reads the snapshot the statement started with: a new claim shows in `claimed`
      // only, a conversation claimed before in the select only.
      const result = await sql<{ owner: string | null; stored: boolean }>`
        with claimed as (
          insert into conversation_owners (correlation_id, owner)
          values (${correlationId}, ${owner})
          on conflict (correlation_id) do nothing
          returning owner
        ), held as (
          select owner from claimed
          union all
          select owner from conversation_owners where correlation_id = ${correlationId}
        ), saved as (
          insert into messages (id, correlation_id, envelope, sent)
          select ${envelope.id}, ${correlationId}, ${JSON.stringify(envelope)}::jsonb, false
          where ${options.anyOwner}::boolean or exists (select 1 from held where owner = ${owner})
          on conflict (id) do nothing
          returning id
        )
        select (select owner from held limit 1) as owner, exists (select 1 from saved) as stored
      `.execute(db)
      const row = result.rows[0]
      if (row?.owner) {
        if (row.stored) rememberStored(envelope.id, false)
        return { owner: remember(correlationId, row.owner), stored: row.stored }
      }
      // Claimed by a transaction that committed while this statement ran: asked again.
      const held = (await this.conversationOwner(correlationId)) ?? owner
      return { owner: held, stored: mayWrite(held) && (await this.save(envelope)) }
    },
    /** The principal that started the conversation (undefined: none from outside did). */
    async conversationOwner(correlationId: string): Promise<string | undefined> {
      const known = owners.get(correlationId)
      if (known) return known
      const row = await db
        .selectFrom('conversation_owners')
        .select('owner')
        .where('correlation_id', '=', correlationId)
        .executeTakeFirst()
      return row ? remember(correlationId, row.owner) : undefined
    },
    /**
     * Stores an envelope once (by id) before the bus sends it: as not sent until the bus
     * reports it (`record`). Answers whether this call stored it.
     */
    async save(envelope: Envelope): Promise<boolean> {
      if (justStored.has(envelope.id)) return false
      const result = await db
        .insertInto('messages')
        .values({
          id: envelope.id,
          correlation_id: envelope.correlationId,
          envelope: JSON.stringify(envelope),
          sent: false,
        })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .executeTakeFirst()
      const stored = Number(result.numInsertedOrUpdatedRows ?? 0) > 0
      if (stored) rememberStored(envelope.id, false)
      return stored
    },
    /**
     * Stores an envelope the bus reported, once (by id), or marks the one stored before it
     * was sent as sent; through the process's group commit when there is one (with the other
     * writes waiting for their turn).
     */
    async record(envelope: Envelope): Promise<void> {
      // The bus's listener stores every message it reports: again for one this process has
      // just recorded would be a statement in front of the agent's first model call.
      if (justStored.get(envelope.id) === true) return
      if (writer) await writer.write(envelopeRecords, envelope)
      else await insertEnvelopes([envelope]).execute(db)
      rememberStored(envelope.id, true)
    },
    /** The envelope stored under `id`, if any, and whether the bus has sent it. */
    async find(id: string): Promise<{ envelope: Envelope; sent: boolean } | undefined> {
      const row = await db
        .selectFrom('messages')
        .select(['envelope', 'sent'])
        .where('id', '=', id)
        .executeTakeFirst()
      return row ? { envelope: row.envelope as unknown as Envelope, sent: row.sent } : undefined
    },
    /** Forgets an envelope stored for a send the bus then refused. */
    async remove(id: string): Promise<void> {
      justStored.delete(id)
      await db.deleteFrom('messages').where('id', '=', id).execute()
    },
    async conversation(correlationId: string): Promise<Envelope[]> {
      const rows = await db
        .selectFrom('messages')
        .select('envelope')
        .where('correlation_id', '=', correlationId)
        .orderBy('position')
        .execute()
      return rows.map((row) => row.envelope as unknown as Envelope)
    },
    /** Whether `agentId` wrote, or was written to, in the conversation (a conversation is short: the loop guard bounds its hops). */
    async isParty(correlationId: string, agentId: string): Promise<boolean> {
      const messages = await this.conversation(correlationId)
      return messages.some(
        (message) => message.from.agentId === agentId || message.to.agentId === agentId,
      )
    },
    /**
     * The newest `limit` envelopes stored since `since`, oldest first; with `sentOnly`, those
     * the bus has sent (to seed the loop guard).
     */
    async since(since: Date, limit: number, options?: { sentOnly: boolean }): Promise<Envelope[]> {
      let query = db.selectFrom('messages').select('envelope').where('created_at', '>=', since)
      if (options?.sentOnly) query = query.where('sent', '=', true)
      const rows = await query.orderBy('position', 'desc').limit(limit).execute()
      return rows.reverse().map((row) => row.envelope as unknown as Envelope)
    },
    async saveEscalation(escalation: Escalation): Promise<void> {
      const record = JSON.stringify(escalation)
      await db
        .insertInto('escalations')
        .values({
          id: escalation.id,
          correlation_id: escalation.correlationId,
          status: escalation.status,
          record,
        })
        .onConflict((conflict) =>
          conflict
            .column('id')
            .doUpdateSet({ status: escalation.status, record, updated_at: new Date() }),
        )
        .execute()
    },
    /** The escalations stored (with `status`; changed since `since`), oldest change first. */
    async escalations(status?: string, options: { since?: Date } = {}): Promise<Escalation[]> {
      let query = db.selectFrom('escalations').select('record').orderBy('updated_at')
      if (status) query = query.where('status', '=', status)
      if (options.since) query = query.where('updated_at', '>=', options.since)
      const rows = await query.execute()
      return rows.map((row) => row.record as unknown as Escalation)
    },
    /** The escalation stored under `id`, if any. */
    async escalation(id: string): Promise<Escalation | undefined> {
      const row = await db
        .selectFrom('escalations')
        .select('record')
        .where('id', '=', id)
        .executeTakeFirst()
      return row?.record as unknown as Escalation | undefined
    },
  }
}

export type MessagesRepository = ReturnType<typeof createMessagesRepository>
