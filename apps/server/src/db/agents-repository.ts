import { Agent, type TrustTier } from '@baton/core'
import { type Kysely, sql, type Transaction } from 'kysely'
import { withEffectiveTrustTier } from '../registry/effective-trust-tier'
import type { Database } from './database'

export type ListAgentsOptions = {
  capability?: string
  type?: string
  /** Matched against id, name and description, case-insensitively. */
  text?: string
  limit: number
  offset: number
}

type Executor = Kysely<Database> | Transaction<Database>

/**
 * Agents and their history of changes. Revoked agents stay (with their history) but are
 * never returned by `find` or `list`.
 *
 * @example
 * const agents = createAgentsRepository(db)
 * await agents.find('0x52908400098527886E0F7030069857D2E4169EE7')
 */
export function createAgentsRepository(db: Kysely<Database>) {
  // The card's tier as the agent counts (see effectiveTrustTier); the record keeps what was signed.
  const toAgent = (record: unknown, granted?: string | null): Agent =>
    withEffectiveTrustTier(Agent.parse(record), granted)
  // The stored record of the live (not revoked) agent of `wallet`, and its grant.
  const liveRow = (wallet: string, executor: Executor = db) =>
    executor
      .selectFrom('agents')
      .select(['record', 'granted_trust_tier'])
      .where('wallet', '=', wallet)
      .where('revoked_at', 'is', null)
      .executeTakeFirst()
  return {
    /** The live (not revoked) agent of `wallet` (checksummed), or undefined. */
    async find(wallet: string, executor: Executor = db): Promise<Agent | undefined> {
      const row = await liveRow(wallet, executor)
      return row ? toAgent(row.record, row.granted_trust_tier) : undefined
    },

    /**
     * The live agent of `wallet` as its creator signed it (its card's tier the one it asks, not
     * the one it counts as), and the tier an admin granted it: what a change starts from, so
     * that changing a name keeps what the registration asked.
     */
    async findSigned(
      wallet: string,
    ): Promise<{ agent: Agent; granted: TrustTier | null; record: unknown } | undefined> {
      const row = await liveRow(wallet)
      return row
        ? { agent: Agent.parse(row.record), granted: row.granted_trust_tier, record: row.record }
        : undefined
    },

    /** The live agent whose id is `id`, or undefined. */
    async findById(id: string): Promise<Agent | undefined> {
      const row = await db
        .selectFrom('agents')
        .select(['record', 'granted_trust_tier'])
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return row ? toAgent(row.record, row.granted_trust_tier) : undefined
    },

    /**
     * The registration the agent of `wallet` is live under: the id of its latest `register`
     * history entry. One per registration and never reused, unlike the agent id (a revoked
     * agent's id may be registered again, by anyone) or even the wallet.
     */
    async registrationOf(wallet: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('agent_history')
        .select((eb) => eb.fn.max('id').as('id'))
        .where('wallet', '=', wallet)
        .where('change', '=', 'register')
        .executeTakeFirst()
      return row?.id === null || row?.id === undefined ? undefined : String(row.id)
    },

    /** True when the wallet was ever registered (revoked or not). */
    async exists(wallet: string, executor: Executor = db): Promise<boolean> {
      const row = await executor
        .selectFrom('agents')
        .select('wallet')
        .where('wallet', '=', wallet)
        .executeTakeFirst()
      return row !== undefined
    },

    async list(options: ListAgentsOptions): Promise<{ agents: Agent[]; total: number }> {
      let query = db.selectFrom('agents').where('revoked_at', 'is', null)
      if (options.capability) {
        query = query.where(sql<boolean>`record->'capabilities' ? ${options.capability}`)
      }
      if (options.type) query = query.where(sql<boolean>`record->>'type' = ${options.type}`)
      if (options.text) {
        const pattern = `%${options.text.replace(/[\\%_]/g, (match) => `\\${match}`)}%`
        query = query.where(
          sql<boolean>`(record->>'id' ilike ${pattern} or record->>'name' ilike ${pattern} or record->>'description' ilike ${pattern})`,
        )
      }
      const [rows, count] = await Promise.all([
        query
          .select(['record', 'granted_trust_tier'])
          .orderBy('created_at')
          .orderBy('wallet')
          .limit(options.limit)
          .offset(options.offset)
          .execute(),
        query.select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow(),
      ])
      return {
        agents: rows.map((row) => toAgent(row.record, row.granted_trust_tier)),
        total: Number(count.count),
      }
    },

    /** Stores a new agent (or replaces a revoked one) and its history entry. */
    async insert(agent: Agent, signer: string, executor: Executor = db): Promise<void> {
      const record = JSON.stringify(agent)
      await executor
        .insertInto('agents')
        .values({ wallet: agent.wallet, id: agent.id, creator: agent.creator, record })
        .onConflict((conflict) =>
          conflict.column('wallet').doUpdateSet({
            id: agent.id,
            creator: agent.creator,
            record,
            updated_at: new Date(),
            revoked_at: null,
            // A new registration of the wallet earns its own grant, if any.
            granted_trust_tier: null,
          }),
        )
        .execute()
      await executor
        .insertInto('agent_history')
        .values({ wallet: agent.wallet, change: 'register', record, signer })
        .execute()
    },

    /**
     * Stores `agent` as the live agent of its wallet while its stored record is still `from`
     * (the `record` of `findSigned`): answers false, writing nothing, when another change or
     * a revocation came in between.
     */
    async update(
      agent: Agent,
      signer: string,
      from: unknown,
      executor: Executor = db,
    ): Promise<boolean> {
      const record = JSON.stringify(agent)
      const result = await executor
        .updateTable('agents')
        .set({ id: agent.id, record, updated_at: new Date() })
        .where('wallet', '=', agent.wallet)
        .where('revoked_at', 'is', null)
        .where('record', '=', sql<Record<string, unknown>>`${JSON.stringify(from)}::jsonb`)
        .executeTakeFirst()
      if (Number(result.numUpdatedRows) === 0) return false
      await executor
        .insertInto('agent_history')
        .values({ wallet: agent.wallet, change: 'update', record, signer })
        .execute()
      return true
    },

    async revoke(agent: Agent, signer: string, executor: Executor = db): Promise<void> {
      await executor
        .updateTable('agents')
        .set({ revoked_at: new Date(), updated_at: new Date() })
        .where('wallet', '=', agent.wallet)
        .execute()
      await executor
        .insertInto('agent_history')
        .values({ wallet: agent.wallet, change: 'revoke', record: JSON.stringify(agent), signer })
        .execute()
    },

    /** The tier an admin granted (or null), and the tier the stored registration asks. */
    async trust(
      wallet: string,
    ): Promise<{ requested: TrustTier; granted: TrustTier | null } | undefined> {
      const row = await liveRow(wallet)
      if (!row) return undefined
      const requested = Agent.parse(row.record).agentCard.trustTier
      return { requested, granted: row.granted_trust_tier }
    },

    /** Grants a live agent a trust tier (an admin's act); false when no live agent has the wallet. */
    async grantTrustTier(wallet: string, tier: string | null): Promise<boolean> {
      const result = await db
        .updateTable('agents')
        .set({ granted_trust_tier: tier })
        .where('wallet', '=', wallet)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },

    async history(wallet: string) {
      const rows = await db
        .selectFrom('agent_history')
        .select(['change', 'record', 'signer', 'at'])
        .where('wallet', '=', wallet)
        .orderBy('id')
        .execute()
      return rows.map((row) => ({
        change: row.change,
        agent: row.record,
        signer: row.signer,
        at: new Date(row.at).toISOString(),
      }))
    },

    /** Whether a signed request used `nonce` (`useNonce`). */
    async nonceUsed(nonce: string): Promise<boolean> {
      const row = await db
        .selectFrom('registration_nonces')
        .select('nonce')
        .where('nonce', '=', nonce.toLowerCase())
        .executeTakeFirst()
      return row !== undefined
    },

    /** Records a signature nonce; false when it was seen before (a replay). */
    async useNonce(nonce: string, signer: string, executor: Executor = db): Promise<boolean> {
      const result = await executor
        .insertInto('registration_nonces')
        .values({ nonce: nonce.toLowerCase(), signer })
        .onConflict((conflict) => conflict.column('nonce').doNothing())
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
    },
  }
}

export type AgentsRepository = ReturnType<typeof createAgentsRepository>
