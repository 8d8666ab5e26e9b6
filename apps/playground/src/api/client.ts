import type { Agent, AgentSwarm } from '@baton/core'
import { requestJson, type ServerEndpoint } from '@baton/surface'
import { authorizedFetch } from './api-key'

/**
 * The server this page was served from (the server serves the playground at `/`), with the
 * API key the person gave (if any) on every request and stream.
 */
export const endpoint: ServerEndpoint = {
  baseUrl: typeof window === 'undefined' ? 'http://127.0.0.1:8787' : window.location.origin,
  fetch: authorizedFetch,
}

const api = 'api/v1/'
const id = (value: string) => encodeURIComponent(value)

/** A step of a run, as the server lists it. */
export type RunStep = {
  path: string
  op: string
  status?: string
  wallet?: string
  saveAs?: string
  usage?: { calls: number; tokens: number; costUsd: number }
  [key: string]: unknown
}

/**
 * A node of a run's delegation tree, as `GET /api/v1/runs/:id` gives it: a step (its path in
 * the plan and op), the wallet that did the work, its status and what it spent.
 */
export type DelegationNode = {
  path: string
  op: string
  wallet: string | null
  status: string
  usage: { calls: number; tokens: number; costUsd: number } | null
  /** The screenshots its task took (a `browser` or `display` task), in order. */
  files?: DelegationFile[]
  children: DelegationNode[]
}

/** A file a step left behind, by its name in the run (`steps[0]/screenshots/screenshot-1.png`). */
export type DelegationFile = { name: string; file: string; mediaType: string; bytes: number }

export type RunSummary = {
  id: string
  status: string
  plan?: unknown
  planName?: string
  name?: string
  createdAt?: string
  [key: string]: unknown
}

export type RunDetail = RunSummary & {
  output?: unknown
  steps?: RunStep[]
  usage?: unknown
  usageByWallet?: Record<string, { calls: number; tokens: number; costUsd: number }>
  tree?: DelegationNode
  question?: string
  error?: { code: string; message: string }
  /** The run's OpenTelemetry trace id (null when the server records no traces). */
  traceId?: string | null
  /** Where the trace is shown (the server's BATON_TRACE_URL_TEMPLATE), when it has one. */
  traceUrl?: string | null
}

export type SavedPlan = {
  id?: string
  name: string
  source?: string
  plan?: unknown
  yaml?: string
}

/** What `POST /api/v1/plans/validate` answers: the plan's outline, or every issue in it. */
export type PlanCheck =
  | { ok: true; plan: { name: string | null; steps: number } }
  | {
      ok: false
      issues: {
        message: string
        code: string
        path: string
        line: number | null
        column: number | null
      }[]
    }

export type CatalogueTool = {
  name: string
  source: 'builtin' | 'module' | 'mcp'
  description: string
  server?: string
  minTrustTier?: string
  grantedWhen?: string
}

/** What an answer on the bus cost one wallet (`spend` of `GET /api/v1/conversations/:id`). */
export type MessageSpend = {
  /** The message answered (the reply's `inReplyTo`). */
  messageId: string
  wallet: string
  calls: number
  tokens: number
  costUsd: number
}

export type SpendRow = { key: string; calls: number; tokens: number; costUsd: number }

function listIn<Item>(body: unknown, key: string): Item[] {
  if (Array.isArray(body)) return body as Item[]
  const list = (body as Record<string, unknown> | undefined)?.[key]
  return Array.isArray(list) ? (list as Item[]) : []
}

/** Every call the playground makes to the server; nothing else talks to it. */
export const serverApi = {
  agentsUrl: `${endpoint.baseUrl}/api/v1`,
  listAgents: async () => listIn<Agent>(await requestJson(endpoint, `${api}agents`), 'agents'),
  getAgent: (wallet: string) => requestJson<Agent>(endpoint, `agent/${id(wallet)}`),
  /** Registers an agent (`201 { agent }`), once however often its answer is lost on the way. */
  registerAgent: (registration: unknown) =>
    requestJson<unknown>(endpoint, `${api}agents`, { body: registration, once: true }),
  listSwarms: async () => listIn<AgentSwarm>(await requestJson(endpoint, `${api}swarms`), 'swarms'),
  listRuns: async () => listIn<RunSummary>(await requestJson(endpoint, `${api}runs`), 'runs'),
  getRun: async (runId: string): Promise<RunDetail> => {
    const body = await requestJson<RunDetail & { run?: RunDetail }>(
      endpoint,
      `${api}runs/${id(runId)}`,
    )
    return body.run && typeof body.run === 'object' ? body.run : body
  },
  startRun: async (request: { plan: string; inputs: Record<string, unknown> }) => {
    // With an Idempotency-Key, and tried again while no answer comes: one run, however many
    // tries reached the server.
    const body = await requestJson<{ id?: string; run?: { id: string } }>(endpoint, `${api}runs`, {
      body: request,
      once: true,
    })
    return body.id ?? body.run?.id ?? ''
  },
  cancelRun: (runId: string) =>
    requestJson(endpoint, `${api}runs/${id(runId)}/cancel`, {
      method: 'POST',
      body: {},
      once: true,
    }),
  resumeRun: (runId: string) =>
    requestJson(endpoint, `${api}runs/${id(runId)}/resume`, {
      method: 'POST',
      body: {},
      once: true,
    }),
  /** A file of a run (a task's screenshot), fetched with the page's key: an `<img>` could not send it. */
  getRunFile: async (runId: string, name: string): Promise<Blob> => {
    const path = name.split('/').map(id).join('/')
    const response = await authorizedFetch(
      `${endpoint.baseUrl}/${api}runs/${id(runId)}/files/${path}`,
    )
    if (!response.ok) throw new Error(`${name}: the server answered ${response.status}`)
    return response.blob()
  },
  // Unknown on purpose: the page verifies the receipt itself rather than trusting its shape.
  getRunReceipt: (runId: string) =>
    requestJson<unknown>(endpoint, `${api}runs/${id(runId)}/receipt`),
  /**
   * The address that signs this server's receipts (what a verifier pins), and the registry
   * id a registration for this server is signed with.
   */
  getRuntime: () =>
    requestJson<{ address: string; source: string; registry: `0x${string}` }>(
      endpoint,
      `${api}runtime`,
    ),
  /** Answers `question` (the one shown): refused (409) when the run asks another by then. */
  answerRun: (runId: string, answer: string, question: string) =>
    requestJson(endpoint, `${api}runs/${id(runId)}/answer`, {
      body: { answer, question },
      once: true,
    }),
  validatePlan: (plan: string, signal?: AbortSignal) =>
    requestJson<PlanCheck>(endpoint, `${api}plans/validate`, {
      body: { plan },
      ...(signal ? { signal } : {}),
    }),
  listPlans: async () => listIn<SavedPlan>(await requestJson(endpoint, `${api}plans`), 'plans'),
  /** Every tool the server can grant (built-in, its module's, its MCP servers'). */
  listTools: async () => listIn<CatalogueTool>(await requestJson(endpoint, `${api}tools`), 'tools'),
  /** The configured model providers and the model ids the server knows. */
  listModels: async () =>
    listIn<{ provider: string; models: string[] }>(
      await requestJson(endpoint, `${api}models`),
      'providers',
    ),
  /** Revokes an agent with its creator's signed change (the body of `DELETE /api/v1/agents/:wallet`). */
  revokeAgent: (wallet: string, body: unknown) =>
    requestJson<unknown>(endpoint, `${api}agents/${id(wallet)}`, {
      method: 'DELETE',
      body,
      once: true,
    }),
  /**
   * Creates a swarm (`201 { swarm }`), once however often its answer is lost on the way; the
   * server checks its members are registered agents.
   */
  createSwarm: (swarm: unknown) =>
    requestJson<unknown>(endpoint, `${api}swarms`, { body: swarm, once: true }),
  /** Changes the fields it names of a swarm (`PATCH`, its owner or an admin): `{ swarm }`. */
  updateSwarm: (swarmId: string, changes: Record<string, unknown>) =>
    requestJson<{ swarm: AgentSwarm }>(endpoint, `${api}swarms/${id(swarmId)}`, {
      method: 'PATCH',
      body: changes,
      once: true,
    }),
  /** Deletes a swarm (its owner or an admin); its runs stay. */
  deleteSwarm: (swarmId: string) =>
    requestJson<unknown>(endpoint, `${api}swarms/${id(swarmId)}`, {
      method: 'DELETE',
      once: true,
    }),
  /** The newest conversations this page may read (so the Bus view has them after a reload). */
  listConversations: async () =>
    listIn<{ correlationId: string; lastAt: string }>(
      await requestJson(endpoint, `${api}conversations?limit=20`),
      'conversations',
    ),
  /** What each answer of a conversation cost, per message answered and per wallet. */
  conversationSpend: async (correlationId: string) =>
    listIn<MessageSpend>(
      await requestJson(endpoint, `${api}conversations/${id(correlationId)}`),
      'spend',
    ),
  /** Starts a conversation: a message from the person at this page to an agent. */
  sendMessage: async (message: { to: string; content: string }) =>
    (
      await requestJson<{ envelope: { correlationId: string } }>(endpoint, `${api}messages`, {
        body: {
          from: { agentId: 'playground-user' },
          to: { agentId: message.to },
          content: message.content,
        },
      })
    ).envelope,
  spend: async (by: 'wallet' | 'run') =>
    listIn<Record<string, unknown>>(await requestJson(endpoint, `${api}spend?by=${by}`), 'spend'),
}
