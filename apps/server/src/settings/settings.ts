import { homedir, hostname } from 'node:os'
import path from 'node:path'
import { issuesOf, ValidationError } from '@baton/core'
import { z } from 'zod'
import { wholeNumberText } from './whole-number-text'

const Flag = z
  .enum(['true', 'false', '1', '0'], { error: 'must be "true" or "false"' })
  .transform((value) => value === 'true' || value === '1')

const DisplayApps = z.record(
  z.string().regex(/^[a-z0-9_-]+$/i, 'app names are letters, digits, _ and -'),
  z.strictObject({ command: z.string().min(1), args: z.array(z.string()).optional() }),
)

/** `BATON_DATA_DIR` for an embedded database kept in memory: nothing is written to disk. */
export const MEMORY_DATA_DIR = 'memory://'

/** The server's settings, read from the environment (names as the variables are spelled). */
export const SettingsSchema = z.object({
  PORT: wholeNumberText(z.number().int().min(0).max(65_535).default(8787)),
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Unset: `.baton` in the home folder of the user running the server, whatever the working
   * directory. `memory://`: the embedded database in memory, nothing written to disk.
   */
  BATON_DATA_DIR: z
    .string()
    .min(1)
    .refine(
      (value) => value === MEMORY_DATA_DIR || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value),
      `must be a folder, or ${MEMORY_DATA_DIR} for a database kept in memory only`,
    )
    .optional(),
  DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' })
    .optional(),
  BATON_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Unset: reads are public while no admin token and no API key exist, private after. */
  BATON_PUBLIC_READS: Flag.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BATON_BODY_LIMIT: wholeNumberText(
    z
      .number()
      .int()
      .positive()
      .default(1024 * 1024),
  ),
  BATON_RATE_LIMIT: wholeNumberText(z.number().int().positive().default(600)),
  BATON_RATE_WINDOW_MS: wholeNumberText(z.number().int().positive().default(60_000)),
  /**
   * Comma-separated origins allowed by CORS (none by default), each kept as the URL standard
   * serializes it (`https://App.example.com/` is `https://app.example.com`, the form a browser
   * sends), or `*` for any.
   */
  BATON_CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value, context) => {
      const origins: string[] = []
      for (const entry of value.split(',')) {
        const given = entry.trim()
        if (given === '') continue
        const origin = given === '*' ? given : originOf(given)
        if (origin !== undefined) origins.push(origin)
        else {
          context.addIssue({
            code: 'custom',
            message: `${JSON.stringify(given)} is not an origin: give scheme://host[:port] (http or https, no path), or *`,
          })
        }
      }
      return origins
    }),
  /**
   * The proxies in front of the server whose `X-Forwarded-For` names the client (fastify's
   * `trustProxy`): `true` (any), a number of hops, or comma-separated addresses and CIDR
   * ranges. Unset: none, and the client is the connection's peer (a forwarded address is
   * ignored, so no client can name itself another to get a fresh rate-limit allowance).
   */
  BATON_TRUST_PROXY: z
    .string()
    .trim()
    .min(1)
    .optional()
    .transform(
      (value): boolean | string | ((address: string, hop: number) => boolean) | undefined => {
        if (value === undefined || value === 'false') return undefined
        if (value === 'true') return true
        if (!/^\d+$/.test(value)) return value
        // The nearest `hops` addresses of the chain are proxies (fastify's numeric trustProxy).
        const hops = Number(value)
        return (_address, hop) => hop < hops
      },
    ),
  /**
   * The URL clients reach this server at (`https://baton.example.com`): agent cards advertise
   * it and browsers' requests from it are same-origin. Unset, the listening address.
   */
  BATON_PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .optional(),
  /** The hosted agent (by id) whose card `GET /.well-known/agent-card.json` serves. */
  BATON_A2A_ROOT_AGENT: z.string().min(1).optional(),
  /** Where the playground build is served from (default `apps/playground/dist`). */
  BATON_PLAYGROUND_DIR: z.string().optional(),
  /** Skip seeding the demo on an empty database. */
  BATON_SEED: Flag.default(true),
  /** The private key (hex) that signs run receipts; unset, a development key in the data folder. */
  BATON_RUNTIME_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 32-byte private key in hex (0x and 64 digits)')
    .optional(),
  /** The registry's id (32 bytes hex) in every signed registration; unset, derived from the runtime key. */
  BATON_REGISTRY_ID: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes in hex (0x and 64 digits)')
    .optional(),
  /** Agent endpoints on loopback, private and link-local addresses may be called (tests, closed networks). */
  BATON_ALLOW_PRIVATE_ENDPOINTS: Flag.default(false),
  /** Every run gets a signed receipt, whatever its plan says. */
  BATON_REQUIRE_RECEIPTS: Flag.default(false),
  /** With DATABASE_URL: the process is one of many (BullMQ queue, Redis bus; docs/scaling-server.md). */
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// URL' }).optional(),
  /** `api` serves HTTP only, `worker` executes runs only, `all` does both. */
  BATON_ROLE: z.enum(['api', 'worker', 'all']).default('all'),
  /** Runs this process executes at once (its in-process queue, or its share of the BullMQ queue). */
  BATON_WORKER_CONCURRENCY: wholeNumberText(z.number().int().positive().default(16)),
  /** How this process is named in `executedBy` (default `hostname:pid`). */
  BATON_WORKER_NAME: z.string().min(1).optional(),
  /** How long a run's lease lasts without renewal before another process takes the run over. */
  BATON_LEASE_MS: wholeNumberText(z.number().int().min(500).default(30_000)),
  /**
   * With REDIS_URL: how long a request waits on Redis (queueing a run, sending a message)
   * before it is answered 503 with nothing done.
   */
  BATON_REDIS_TIMEOUT_MS: wholeNumberText(z.number().int().min(100).max(60_000).default(5_000)),
  /** How deep a hosted agent's `start_subagent` may nest (its sub-agent is depth 1). */
  BATON_MAX_DELEGATION_DEPTH: wholeNumberText(z.number().int().min(0).max(16).default(3)),
  /** A JSON file of MCP servers (`{"mcpServers": {...}}`) whose tools the server can grant. */
  BATON_MCP_CONFIG: z.string().min(1).optional(),
  /** A module exporting AI SDK tools (default or `tools` export) the server can grant. */
  BATON_TOOLS_MODULE: z.string().min(1).optional(),
  /** Steps a run may execute in all (nested ones included); a plan that may run more is refused. */
  BATON_RUN_MAX_STEPS: wholeNumberText(z.number().int().min(1).max(10_000_000).default(50_000)),
  /** Wall time of a run whose budget sets none (`maxWallMs`), per attempt. */
  BATON_RUN_MAX_WALL_MS: wholeNumberText(z.number().int().min(1).default(600_000)),
  /** With DATABASE_URL: how long a connection attempt or a query may take before it fails. */
  BATON_DATABASE_TIMEOUT_MS: wholeNumberText(z.number().int().min(100).default(10_000)),
  /**
   * With DATABASE_URL: keep the statements the server repeats prepared on each connection
   * (off behind a pooler that does not keep them: PgBouncer in transaction mode before 1.21).
   */
  BATON_DATABASE_PREPARE: Flag.default(true),
  /**
   * The embedded database (no DATABASE_URL): how often its tables' dead rows and statistics
   * are looked at, and vacuumed or analysed when due; 0 turns it off.
   */
  BATON_EMBEDDED_VACUUM_MS: wholeNumberText(
    z
      .number()
      .int()
      .refine((ms) => ms === 0 || ms >= 100, 'must be 0 (off) or at least 100')
      .default(10_000),
  ),
  /**
   * Comma-separated origins sub-agents' browsers may open (`start_subagent` and MAL `task`
   * with `workspace: browser`); unset, there are no browser workspaces.
   */
  BATON_BROWSER_ORIGINS: z.string().default(''),
  /** Browser workspaces may reach loopback addresses (only those listed in BATON_BROWSER_ORIGINS). */
  BATON_BROWSER_ALLOW_LOOPBACK: Flag.default(false),
  /** The Chromium browser workspaces run (never downloaded). */
  BATON_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /**
   * JSON `{ "<name>": { "command": "...", "args": [...] } }`: the apps a display workspace may
   * launch; unset, there are no display workspaces.
   */
  BATON_DISPLAY_APPS: z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined || text.trim() === '') return undefined
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        context.addIssue({
          code: 'custom',
          message: 'must be JSON: { "name": { "command": "..." } }',
        })
        return z.NEVER
      }
      const apps = DisplayApps.safeParse(value)
      if (apps.success) return apps.data
      context.addIssue({
        code: 'custom',
        message: apps.error.issues
          .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
          .join('; '),
      })
      return z.NEVER
    }),
  /** `GET /metrics` answers without the API token (a scraper inside a closed network). */
  BATON_METRICS_PUBLIC: Flag.default(false),
  /**
   * Hold every answer against the response schema the OpenAPI document gives it, and fail
   * (500) one that differs: for the test suite and a staging server, not for production.
   */
  BATON_CHECK_RESPONSES: Flag.default(false),
  /** A run's trace link: a URL with `{traceId}` (`http://jaeger:16686/trace/{traceId}`). */
  BATON_TRACE_URL_TEMPLATE: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .refine((value) => value.includes('{traceId}'), 'must contain {traceId}')
    .optional(),
})

export type Settings = {
  port: number
  host: string
  dataDir: string
  databaseUrl: string | undefined
  /** The admin token (BATON_API_TOKEN): every scope, and the admin routes. */
  apiToken: string | undefined
  /** BATON_PUBLIC_READS; undefined: public while no token and no API key exist. */
  publicReads: boolean | undefined
  logLevel: z.output<typeof SettingsSchema>['LOG_LEVEL']
  bodyLimit: number
  rateLimit: { max: number; windowMs: number }
  corsOrigins: string[]
  /** BATON_TRUST_PROXY (fastify's `trustProxy`); undefined: no proxy is trusted. */
  trustProxy?: boolean | string | ((address: string, hop: number) => boolean) | undefined
  /** BATON_PUBLIC_URL, without a trailing slash; undefined for the listening address. */
  publicUrl: string | undefined
  /** BATON_A2A_ROOT_AGENT; undefined for the first orchestrator. */
  a2aRootAgent: string | undefined
  playgroundDir: string | undefined
  seed: boolean
  /** Signs run receipts (BATON_RUNTIME_KEY); never logged. */
  runtimeKey: string | undefined
  requireReceipts: boolean
  /** Agent endpoints on private addresses may be called (BATON_ALLOW_PRIVATE_ENDPOINTS). */
  allowPrivateEndpoints: boolean
  /** The registry id signed registrations must name (BATON_REGISTRY_ID); unset, from the runtime key. */
  registryId: `0x${string}` | undefined
  /** Set (with `databaseUrl`) when this process is one of many; see docs/scaling-server.md. */
  redisUrl: string | undefined
  role: 'api' | 'worker' | 'all'
  workerConcurrency: number
  workerName: string
  /** `GET /metrics` needs no credential (BATON_METRICS_PUBLIC). */
  metricsPublic: boolean
  /** BATON_CHECK_RESPONSES: answers are checked against their documented schemas (500 if not). */
  checkResponses: boolean
  /** Where a run's trace is shown, `{traceId}` in it (BATON_TRACE_URL_TEMPLATE). */
  traceUrlTemplate: string | undefined
  leaseMs: number
  /** How long a request waits on Redis before a 503 (BATON_REDIS_TIMEOUT_MS). */
  redisTimeoutMs: number
  /** How deep a hosted agent's `start_subagent` may nest (BATON_MAX_DELEGATION_DEPTH). */
  maxDelegationDepth: number
  /** The MCP servers' settings file (BATON_MCP_CONFIG). */
  mcpConfig: string | undefined
  /** The operator's module of AI SDK tools (BATON_TOOLS_MODULE). */
  toolsModule: string | undefined
  /** Steps a run may execute in all, and the worst case a plan may have (BATON_RUN_MAX_STEPS). */
  runMaxSteps: number
  /** Wall time of a run whose budget sets none (BATON_RUN_MAX_WALL_MS). */
  runMaxWallMs: number
  /** How long a database connection or query may take (BATON_DATABASE_TIMEOUT_MS). */
  databaseTimeoutMs: number
  /** Whether PostgreSQL connections keep repeated statements prepared (BATON_DATABASE_PREPARE). */
  databasePrepare: boolean
  /** How often the embedded database is vacuumed when due, ms; 0: never (BATON_EMBEDDED_VACUUM_MS). */
  embeddedVacuumMs: number
  /** Browser workspaces for sub-agents (BATON_BROWSER_ORIGINS, ...); undefined: none. */
  browserWorkspaces:
    | { allowedOrigins: string[]; allowLoopback: boolean; executablePath: string }
    | undefined
  /** Display workspaces for sub-agents (BATON_DISPLAY_APPS); undefined: none. */
  displayWorkspaces: { apps: Record<string, { command: string; args?: string[] }> } | undefined
}

/**
 * The origin `value` names (`https://App.example.com/` → `https://app.example.com`), or
 * undefined when it is not one: not http(s), or with a path, query, fragment or credentials
 * (a browser's `Origin` never has them, so such an entry would match nothing).
 */
function originOf(value: string): string | undefined {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  const bare =
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '' &&
    url.username === '' &&
    url.password === ''
  return bare ? url.origin : undefined
}

/** Baton variables other parts read (the models, the CLI, sub-agents): never a misspelt setting. */
const READ_ELSEWHERE = new Set([
  'BATON_OPENAI_API_KEY',
  'BATON_OPENAI_BASE_URL',
  'BATON_REGISTRY_URL',
  'BATON_SERVER_URL',
  'BATON_SUPERVISOR_LISTENER',
  'BATON_USER',
])

/**
 * A variable the server does not read that is one or two letters from a setting left unset:
 * the server would start without that setting. A `BATON_` one near any `BATON_` setting
 * (`BATON_API_TOKN` while `BATON_API_TOKEN` is unset: a server open to anyone who reaches
 * it), or one near `DATABASE_URL` (`DATABASE_URI`: the embedded database on local disk
 * instead of PostgreSQL).
 */
function misspeltSettings(present: Record<string, unknown>): { path: string; message: string }[] {
  const settings = Object.keys(SettingsSchema.shape).filter((name) => name.startsWith('BATON_'))
  const known = (name: string) =>
    Object.hasOwn(SettingsSchema.shape, name) || READ_ELSEWHERE.has(name)
  return Object.keys(present).flatMap((name) => {
    if (known(name)) return []
    const near = name.startsWith('BATON_') ? settings : ['DATABASE_URL']
    const meant = near.find(
      (setting) => !Object.hasOwn(present, setting) && withinTwoEdits(name, setting),
    )
    return meant
      ? [
          {
            path: name,
            message: `is no setting of the server: did you mean ${meant}? It is unset, so the server would start without it`,
          },
        ]
      : []
  })
}

/** Whether `a` becomes `b` with at most two insertions, deletions or substitutions. */
function withinTwoEdits(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 2) return false
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution)
    }
    previous = current
  }
  return previous[b.length]! <= 2
}

/**
 * Reads and checks the settings; a bad value throws a `ValidationError` naming the variable,
 * as does a `BATON_` variable that looks like a misspelt setting left unset.
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
  const misspelt = misspeltSettings(present)
  if (!parsed.success)
    throw new ValidationError('settings', [...issuesOf(parsed.error), ...misspelt])
  if (misspelt.length > 0) throw new ValidationError('settings', misspelt)
  const values = parsed.data
  if (values.REDIS_URL && !values.DATABASE_URL) {
    throw new ValidationError('settings', [
      { path: 'REDIS_URL', message: 'needs DATABASE_URL: processes share one PostgreSQL' },
    ])
  }
  const browserOrigins = values.BATON_BROWSER_ORIGINS.split(',')
    .map((origin) => origin.trim())
    .filter(Boolean)
  return {
    port: values.PORT,
    host: values.HOST,
    // Not a folder: resolved, `memory://` would be a folder named `memory:` where it started.
    dataDir:
      values.BATON_DATA_DIR === MEMORY_DATA_DIR
        ? MEMORY_DATA_DIR
        : path.resolve(values.BATON_DATA_DIR ?? defaultDataDir()),
    databaseUrl: values.DATABASE_URL,
    apiToken: values.BATON_API_TOKEN,
    publicReads: values.BATON_PUBLIC_READS,
    logLevel: values.LOG_LEVEL,
    bodyLimit: values.BATON_BODY_LIMIT,
    rateLimit: { max: values.BATON_RATE_LIMIT, windowMs: values.BATON_RATE_WINDOW_MS },
    corsOrigins: values.BATON_CORS_ORIGINS,
    trustProxy: values.BATON_TRUST_PROXY,
    publicUrl: values.BATON_PUBLIC_URL?.replace(/\/+$/, ''),
    a2aRootAgent: values.BATON_A2A_ROOT_AGENT,
    playgroundDir: values.BATON_PLAYGROUND_DIR,
    seed: values.BATON_SEED,
    runtimeKey: values.BATON_RUNTIME_KEY,
    requireReceipts: values.BATON_REQUIRE_RECEIPTS,
    allowPrivateEndpoints: values.BATON_ALLOW_PRIVATE_ENDPOINTS,
    registryId: values.BATON_REGISTRY_ID as `0x${string}` | undefined,
    redisUrl: values.REDIS_URL,
    role: values.BATON_ROLE,
    workerConcurrency: values.BATON_WORKER_CONCURRENCY,
    workerName: values.BATON_WORKER_NAME ?? `${hostname()}:${process.pid}`,
    metricsPublic: values.BATON_METRICS_PUBLIC,
    checkResponses: values.BATON_CHECK_RESPONSES,
    traceUrlTemplate: values.BATON_TRACE_URL_TEMPLATE,
    leaseMs: values.BATON_LEASE_MS,
    redisTimeoutMs: values.BATON_REDIS_TIMEOUT_MS,
    maxDelegationDepth: values.BATON_MAX_DELEGATION_DEPTH,
    mcpConfig: values.BATON_MCP_CONFIG,
    toolsModule: values.BATON_TOOLS_MODULE,
    runMaxSteps: values.BATON_RUN_MAX_STEPS,
    runMaxWallMs: values.BATON_RUN_MAX_WALL_MS,
    databaseTimeoutMs: values.BATON_DATABASE_TIMEOUT_MS,
    databasePrepare: values.BATON_DATABASE_PREPARE,
    embeddedVacuumMs: values.BATON_EMBEDDED_VACUUM_MS,
    browserWorkspaces: browserOrigins.length
      ? {
          allowedOrigins: browserOrigins,
          allowLoopback: values.BATON_BROWSER_ALLOW_LOOPBACK,
          executablePath: values.BATON_CHROMIUM_PATH,
        }
      : undefined,
    displayWorkspaces: values.BATON_DISPLAY_APPS ? { apps: values.BATON_DISPLAY_APPS } : undefined,
  }
}

/**
 * The data folder when `BATON_DATA_DIR` is unset: `.baton` in the home folder, so a server
 * started from the repository, from `apps/server` or from anywhere else finds the same data.
 * A server with `DATABASE_URL` keeps nothing there (its runtime key lives in the database).
 *
 * @example
 * defaultDataDir() // '/home/me/.baton'
 */
export function defaultDataDir(): string {
  return path.join(homedir(), '.baton')
}

/** The registry id `testSettings` gives a server, so tests can sign registrations for it. */
export const testRegistryId = `0x${'7e'.repeat(32)}` as const

/**
 * Settings for tests: an in-memory database unless `dataDir`/`databaseUrl` say otherwise.
 *
 * @example
 * const app = await buildApp({ settings: testSettings({ apiToken: 'x'.repeat(16) }) })
 */
export function testSettings(overrides: Partial<Settings> = {}): Settings {
  return {
    ...readSettings({ BATON_SEED: 'false', LOG_LEVEL: 'silent', BATON_CHECK_RESPONSES: 'true' }),
    dataDir: 'memory://',
    registryId: testRegistryId,
    ...overrides,
  }
}
