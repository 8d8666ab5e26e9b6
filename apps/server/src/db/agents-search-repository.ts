import { type AgentMatch, type AgentQuery, TRUST_TIERS } from '@baton/mal'
import { type Kysely, sql } from 'kysely'
import type { Database } from './database'

/**
 * The OR of the query's words, each also as a prefix (`migrat` finds `migrations`). Only
 * letters and digits reach `to_tsquery`, so no input can be read as query syntax.
 */
function tsQueryOf(text: string): string | undefined {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  const unique = [...new Set(words)].slice(0, 32)
  return unique.length === 0 ? undefined : unique.map((word) => `${word}:*`).join(' | ')
}

/**
 * Agent search over the agents table's `tsvector` (migration 0003): live agents only, ranked
 * by `ts_rank` (normalised to 0..1), filtered by capability, type and minimum trust tier.
 *
 * @example
 * const search = createAgentsSearchRepository(db)
 * await search.search({ query: 'sql review', limit: 5 }) // [{ wallet, name, ..., score }]
 */
export function createAgentsSearchRepository(db: Kysely<Database>) {
  return {
    async search(query: AgentQuery): Promise<AgentMatch[]> {
      const terms = tsQueryOf(query.query)
      if (!terms) return []
      const tsquery = sql`to_tsquery('english', ${terms})`
      let select = db
        .selectFrom('agents')
        .select(['wallet', 'record'])
        .select(sql<number>`ts_rank(search, ${tsquery}, 32)`.as('score'))
        .where('revoked_at', 'is', null)
        .where(sql<boolean>`search @@ ${tsquery}`)
      if (query.capability) {
        select = select.where(sql<boolean>`record->'capabilities' ? ${query.capability}`)
      }
      if (query.type) select = select.where(sql<boolean>`record->>'type' = ${query.type}`)
      if (query.trustTier) {
        const admitted = TRUST_TIERS.slice(TRUST_TIERS.indexOf(query.trustTier))
        // The effective tier (effectiveTrustTier): what was asked, up to what an admin granted.
        select = select
          .where(
            sql<boolean>`coalesce(record#>>'{agentCard,trustTier}', 'low') in (${sql.join(admitted)})`,
          )
          .where(sql<boolean>`coalesce(granted_trust_tier, 'low') in (${sql.join(admitted)})`)
      }
      const rows = await select
        .orderBy('score', 'desc')
        .orderBy(sql`record->>'name'`)
        .orderBy('wallet')
        .limit(query.limit)
        .execute()
      return rows.map((row) => {
        const record = row.record as {
          name: string
          description?: string
          capabilities?: string[]
        }
        return {
          wallet: row.wallet,
          name: record.name,
          description: record.description ?? '',
          capabilities: record.capabilities ?? [],
          score: Math.round(Number(row.score) * 10_000) / 10_000,
        }
      })
    },
  }
}

export type AgentsSearchRepository = ReturnType<typeof createAgentsSearchRepository>
