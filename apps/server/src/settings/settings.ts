import { hostname } from 'node:os'
import path from 'node:path'
import { issuesOf, ValidationError } from '@baton/core'
import { z } from 'zod'

const Flag = z
  .enum(['true', 'false', '1', '0'], { error: 'must be "true" or "false"' })
  .transform((value) => value === 'true' || value === '1')

/** The server's settings, read from the environment (names as the variables are spelled). */
export const SettingsSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65_535).default(8787),
  HOST: z.string().min(1).default('127.0.0.1'),
  BATON_DATA_DIR: z.string().min(1).default('./.baton'),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' })
    .optional(),
  BATON_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  BATON_PUBLIC_READS: Flag.default(true),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BATON_BODY_LIMIT: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  BATON_RATE_LIMIT: z.coerce.number().int().positive().default(600),
  BATON_RATE_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  /** Comma-separated origins allowed by CORS (none by default). */
  BATON_CORS_ORIGINS: z.string().default(''),
  /** Where the playground build is served from (default `apps/playground/dist`). */
  BATON_PLAYGROUND_DIR: z.string().optional(),
  /** Skip seeding the demo on an empty database. */
  BATON_SEED: Flag.default(true),
  /** The private key (hex) that signs run receipts; unset, a development key in the data folder. */
  BATON_RUNTIME_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte private key in hex (0x and 64 digits)')
    .optional(),
  /** Every run gets a signed receipt, whatever its plan says. */
  BATON_REQUIRE_RECEIPTS: Flag.default(false),
  /** With DATABASE_URL: the process is one of many (BullMQ queue, Redis bus; docs/scaling.md). */
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// URL' }).optional(),
  /** `api` serves HTTP only, `worker` executes runs only, `all` does both. */
  BATON_ROLE: z.enum(['api', 'worker', 'all']).default('all'),
  /** Runs this process executes at once. */
  BATON_WORKER_CONCURRENCY: z.coerce.number().int().positive().default(8),
  /** How this process is named in `executedBy` (default `hostname:pid`). */
  BATON_WORKER_NAME: z.string().min(1).optional(),
  /** How long a run's lease lasts without renewal before another process takes the run over. */
  BATON_LEASE_MS: z.coerce.number().int().min(500).default(30_000),
  /** How deep a hosted agent's `start_subagent` may nest (its sub-agent is depth 1). */
  BATON_MAX_DELEGATION_DEPTH: z.coerce.number().int().min(0).max(16).default(3),
  /** With DATABASE_URL: how long a connection attempt or a query may take before it fails. */
  BATON_DATABASE_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
})

export type Settings = {
  port: number
  host: string
  dataDir: string
  databaseUrl: string | undefined
  apiToken: string | undefined
  publicReads: boolean
  logLevel: z.output<typeof SettingsSchema>['LOG_LEVEL']
  bodyLimit: number
  rateLimit: { max: number; windowMs: number }
  corsOrigins: string[]
  playgroundDir: string | undefined
  seed: boolean
  /** Signs run receipts (BATON_RUNTIME_KEY); never logged. */
  runtimeKey: string | undefined
  requireReceipts: boolean
  /** Set (with `databaseUrl`) when this process is one of many; see docs/scaling.md. */
  redisUrl: string | undefined
  role: 'api' | 'worker' | 'all'
  workerConcurrency: number
  workerName: string
  leaseMs: number
  /** How deep a hosted agent's `start_subagent` may nest (BATON_MAX_DELEGATION_DEPTH). */
  maxDelegationDepth: number
  /** How long a database connection or query may take (BATON_DATABASE_TIMEOUT_MS). */
  databaseTimeoutMs: number
}

/**
 * Reads and checks the settings; a bad value throws a `ValidationError` naming the variable.
 *
 * @example
 * const settings = readSettings(process.env)
 * settings.port // 8787
 */
export function readSettings(environment: Record<string, string | undefined>): Settings {
  // An empty variable counts as unset, as shells and .env files often leave them.
  const present = Object.fromEntries(
    Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''),
  )
  const parsed = SettingsSchema.safeParse(present)
  if (!parsed.success) throw new ValidationError('settings', issuesOf(parsed.error))
  const values = parsed.data
  if (values.REDIS_URL && !values.DATABASE_URL) {
    throw new ValidationError('settings', [
      { path: 'REDIS_URL', message: 'needs DATABASE_URL: processes share one PostgreSQL' },
    ])
  }
  return {
    port: values.PORT,
    host: values.HOST,
    dataDir: path.resolve(values.BATON_DATA_DIR),
    databaseUrl: values.DATABASE_URL,
    apiToken: values.BATON_API_TOKEN,
    publicReads: values.BATON_PUBLIC_READS,
    logLevel: values.LOG_LEVEL,
    bodyLimit: values.BATON_BODY_LIMIT,
    rateLimit: { max: values.BATON_RATE_LIMIT, windowMs: values.BATON_RATE_WINDOW_MS },
    corsOrigins: values.BATON_CORS_ORIGINS.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    playgroundDir: values.BATON_PLAYGROUND_DIR,
    seed: values.BATON_SEED,
    runtimeKey: values.BATON_RUNTIME_KEY,
    requireReceipts: values.BATON_REQUIRE_RECEIPTS,
    redisUrl: values.REDIS_URL,
    role: values.BATON_ROLE,
    workerConcurrency: values.BATON_WORKER_CONCURRENCY,
    workerName: values.BATON_WORKER_NAME ?? `${hostname()}:${process.pid}`,
    leaseMs: values.BATON_LEASE_MS,
    maxDelegationDepth: values.BATON_MAX_DELEGATION_DEPTH,
    databaseTimeoutMs: values.BATON_DATABASE_TIMEOUT_MS,
  }
}

/**
 * Settings for tests: an in-memory database unless `dataDir`/`databaseUrl` say otherwise.
 *
 * @example
 * const app = await buildApp({ settings: testSettings({ apiToken: 'x'.repeat(16) }) })
 */
export function testSettings(overrides: Partial<Settings> = {}): Settings {
  return {
    ...readSettings({ BATON_SEED: 'false', LOG_LEVEL: 'silent' }),
    dataDir: 'memory://',
    ...overrides,
  }
}
