import { readFile } from 'node:fs/promises'
import { Agent, type AgentInput } from '@baton/core'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PostgresDialect } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import { inject } from 'vitest'
import { databaseSettings } from '../../__fixtures__/backends'
import { up } from '../../db/migrations/0002-a2a-tasks'
import { up as keepStartingMessages } from '../../db/migrations/0022-a2a-tasks-started-by'
import type { A2AServices, HostedAgentAnswer, HostedAgentRun } from '../a2a-services'

export const hostedAgent = (overrides: Partial<AgentInput> = {}): Agent =>
  Agent.parse({
    id: 'analyst',
    wallet: '0x52908400098527886e0f7030069857d2e4169ee7',
    creator: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    name: 'Incident Analyst',
    type: 'specialist',
    model: 'offline:default',
    capabilities: ['incident-review'],
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:00:00.000Z',
    agentCard: {
      capabilityDescription: 'Reviews incidents.',
      examples: ['Review yesterday’s incidents'],
    },
    ...overrides,
  } satisfies AgentInput)

export type TestServices = A2AServices & {
  calls: HostedAgentRun[]
  close(): Promise<void>
}

/**
 * A2A services over a real PGlite database (only the A2A task table) and a stand-in agent
 * host that answers `<name> says: <input>`, or waits for its signal when asked to.
 */
export async function createTestServices(
  options: {
    dataDir?: string
    /** A database of the test run's PostgreSQL cluster instead of PGlite. */
    postgres?: boolean
    apiToken?: string
    agents?: Agent[]
    answer?: (input: HostedAgentRun) => Promise<HostedAgentAnswer>
  } = {},
): Promise<TestServices> {
  const db = options.postgres
    ? new Kysely<unknown>({
        dialect: new PostgresDialect({
          pool: new pg.Pool({
            connectionString: (await databaseSettings('postgres')).databaseUrl,
          }),
        }),
      })
    : new Kysely<unknown>({ dialect: new PGliteDialect(await openPglite(options.dataDir)) })
  await up(db)
  await keepStartingMessages(db)
  const agents = options.agents ?? [
    hostedAgent(),
    hostedAgent({
      id: 'lead',
      name: 'Lead',
      type: 'orchestrator',
      wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    }),
  ]
  const calls: HostedAgentRun[] = []
  return {
    apiToken: options.apiToken,
    db,
    calls,
    findAgent: async (agentId) => agents.find((agent) => agent.id === agentId),
    registrationOf: async (agent) => agent.wallet,
    findOrchestrator: async () => agents.find((agent) => agent.type === 'orchestrator'),
    hops: () => 0,
    recordMessage: async () => {},
    runHostedAgent: async (input) => {
      calls.push(input)
      if (options.answer) return options.answer(input)
      const agent = input.agent as Agent
      if (input.input.startsWith('wait')) {
        await new Promise((_resolve, reject) => {
          input.signal?.addEventListener('abort', () => reject(input.signal?.reason), {
            once: true,
          })
        })
      }
      return {
        text: `${agent.name} says: ${input.input}`,
        usage: { calls: 1, tokens: 3, costUsd: 0 },
        correlationId: input.correlationId ?? 'new',
        hop: input.hop ?? 0,
      }
    },
    close: () => db.destroy(),
  }
}

/** A PGlite in `dataDir`, or in memory from the test run's migrated template (no initdb). */
async function openPglite(dataDir: string | undefined): Promise<PGlite> {
  if (dataDir) return PGlite.create(dataDir)
  const template = inject('pgliteTemplate')
  if (!template) return PGlite.create()
  return PGlite.create({ loadDataDir: new Blob([await readFile(template)]) })
}

/**
 * A stand-in agent host that answers `done: <input>` once the test opens that input's gate
 * (`gates.get(input)?.()`): a task that runs as long as a test needs it to.
 *
 * @example
 * const { gates, answer } = gatedAnswers()
 * const services = await createTestServices({ answer })
 */
export function gatedAnswers() {
  const gates = new Map<string, () => void>()
  const answer = async (input: HostedAgentRun): Promise<HostedAgentAnswer> => {
    await new Promise<void>((resolve) => gates.set(input.input, resolve))
    return {
      text: `done: ${input.input}`,
      usage: { calls: 1, tokens: 1, costUsd: 0 },
      correlationId: 'c',
      hop: 0,
    }
  }
  return { gates, answer }
}
