import { randomUUID } from 'node:crypto'
import {
  type Agent,
  BatonError,
  Budget,
  isTrustTierAtLeast,
  isWallet,
  parseWallet,
  TrustTier,
} from '@baton/core'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyBaseLogger } from 'fastify'
import { z } from 'zod'
import { ownsOrAdministers, type Principal } from '../auth/principal'
import type { StoredRun } from '../db/runs-repository'
import type { BatonServices } from '../services'
import { waitForRun } from './wait-for-run'

type Services = Pick<BatonServices, 'repositories' | 'runs'>
type Extra = {
  signal: AbortSignal
  _meta?: { progressToken?: string | number }
  sendNotification: (notification: {
    method: 'notifications/progress'
    params: { progressToken: string | number; progress: number; message?: string }
  }) => Promise<void>
}

// The HTTP API's budget: the same limits, and a key it does not know (a misspelt limit) is
// refused rather than dropped, which would leave the run unbounded.
const BudgetShape = Budget.optional().describe(
  'the most the run may spend: calls, costUsd (or cost, in USD), tokens, maxWallMs (or seconds)',
)

/**
 * Baton as an MCP server: its agents and plans as tools for any MCP client (`list_agents`,
 * `delegate`, `run_plan`, `answer_run`, `get_run`), each a thin adapter over the run service,
 * so a delegation made over MCP is a run like any other (budget, ledger, events, receipt).
 * Long calls send progress notifications; a client's cancellation cancels the run. Each tool's
 * arguments are strict: one it does not know (a misspelt `budget`) is a tool error naming it,
 * not dropped, which would run a delegation on the server's default budget.
 *
 * @example
 * const server = createBatonMcpServer(app.baton, { principal, readsArePublic, log: app.log })
 * await server.connect(transport)
 */
export function createBatonMcpServer(
  services: Services,
  options: { principal: Principal; readsArePublic: boolean; log: FastifyBaseLogger },
): McpServer {
  const { principal } = options
  // The session's runs are its principal's; it sees others' only as the HTTP API would let it.
  const mayRead = (run: StoredRun) =>
    ownsOrAdministers(principal, run.owner) || options.readsArePublic
  const maySteer = (run: StoredRun) => ownsOrAdministers(principal, run.owner)
  // Wrapped before the tools are registered, so every one of them answers Baton errors in words.
  const server = wrapErrors(new McpServer({ name: 'baton', version: '0.1.0' }), options.log)
  const { repositories, runs } = services

  const resolveAgent = async (key: string): Promise<Agent | undefined> =>
    isWallet(key) ? repositories.agents.find(parseWallet(key)) : repositories.agents.findById(key)

  // Starts a run and answers when it is final or asks a question, cancelling it if the client does.
  const runAndWait = async (
    start: () => Promise<{ id: string }>,
    extra: Extra,
  ): Promise<CallToolResult> => {
    const { id } = await start()
    return follow(id, extra)
  }

  const follow = async (id: string, extra: Extra): Promise<CallToolResult> => {
    const token = extra._meta?.progressToken
    let progress = 0
    try {
      const run = await waitForRun(services, id, {
        signal: extra.signal,
        onProgress: async (current) => {
          if (token === undefined) return
          progress += 1
          await extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress, message: `run ${id}: ${current.status}` },
            })
            .catch(() => {})
        },
      })
      return runResult(run)
    } catch (error) {
      if (extra.signal.aborted) {
        // The client gave up: the run it started goes with it.
        await runs.cancel(id).catch(() => {})
      }
      throw error
    }
  }

  server.registerTool(
    'list_agents',
    {
      description:
        'The agents registered on this Baton server: id, wallet, what each does, its trust tier.',
      inputSchema: z.strictObject({
        query: z.string().optional().describe('free text matched against id, name and description'),
        capability: z.string().optional(),
        trustTier: TrustTier.optional().describe('only agents at this tier or above'),
      }),
    },
    async ({ query, capability, trustTier }) => {
      const page = await repositories.agents.list({
        limit: 100,
        offset: 0,
        ...(query ? { text: query } : {}),
        ...(capability ? { capability } : {}),
      })
      const agents = page.agents
        .filter((agent) => !trustTier || isTrustTierAtLeast(agent.agentCard.trustTier, trustTier))
        .map((agent) => ({
          id: agent.id,
          wallet: agent.wallet,
          name: agent.name,
          type: agent.type,
          description: agent.agentCard.capabilityDescription || agent.description,
          capabilities: agent.capabilities,
          trustTier: agent.agentCard.trustTier,
          model: agent.model,
        }))
      return {
        content: [{ type: 'text', text: JSON.stringify(agents, null, 2) }],
        structuredContent: { agents },
      }
    },
  )

  server.registerTool(
    'delegate',
    {
      description:
        'Ask one registered Baton agent to do something and wait for its answer: a run of its own with a budget, its spend attributed per wallet.',
      inputSchema: z.strictObject({
        agent: z.string().min(1).describe('the agent id or wallet'),
        prompt: z.string().min(1),
        budget: BudgetShape,
      }),
    },
    async ({ agent: key, prompt, budget }, extra) => {
      const agent = await resolveAgent(key)
      if (!agent) return failure(`No agent "${key}" is registered here (see list_agents).`)
      return runAndWait(
        () =>
          runs.start({
            plan: {
              name: `mcp delegate to ${agent.id}`,
              inputs: { prompt: 'string' },
              steps: [
                // The prompt goes in as an input, so text like {{...}} is never a template.
                {
                  op: 'delegate',
                  saveAs: 'answer',
                  agentWallet: agent.wallet,
                  prompt: '{{inputs.prompt}}',
                },
                { op: 'stop', output: '{{answer}}' },
              ],
            },
            inputs: { prompt },
            ...(budget ? { budget } : {}),
            owner: principal.id,
          }),
        extra as unknown as Extra,
      )
    },
  )

  server.registerTool(
    'run_plan',
    {
      description:
        'Run a MAL plan (YAML or JSON) and wait for its output; when it asks a question (ask_user), answer it with answer_run.',
      inputSchema: z.strictObject({
        plan: z.string().min(1).describe('the MAL plan, YAML or JSON'),
        inputs: z.record(z.string(), z.unknown()).optional(),
        budget: BudgetShape,
      }),
    },
    async ({ plan, inputs, budget }, extra) =>
      runAndWait(
        () =>
          runs.start({
            plan,
            ...(inputs ? { inputs } : {}),
            ...(budget ? { budget } : {}),
            owner: principal.id,
          }),
        extra as unknown as Extra,
      ),
  )

  server.registerTool(
    'answer_run',
    {
      description: 'Answer the question a paused run asked (ask_user) and wait for it again.',
      inputSchema: z.strictObject({ runId: z.string().min(1), answer: z.string() }),
    },
    async ({ runId, answer }, extra) => {
      const run = await repositories.runs.find(runId)
      if (!run || !mayRead(run)) return failure(`No run "${runId}".`)
      if (!maySteer(run))
        return failure(`Only the principal that started run "${runId}" may answer it.`)
      await runs.answer(runId, answer)
      return follow(runId, extra as unknown as Extra)
    },
  )

  server.registerTool(
    'get_run',
    {
      description: 'A run’s status, output, question and spend, without waiting.',
      inputSchema: z.strictObject({ runId: z.string().min(1) }),
    },
    async ({ runId }) => {
      const run = await repositories.runs.find(runId)
      if (!run || !mayRead(run)) return failure(`No run "${runId}".`)
      return runResult(run)
    },
  )

  return server
}

function runResult(run: StoredRun): CallToolResult {
  const facts = {
    runId: run.id,
    status: run.status,
    output: run.output ?? null,
    question: run.question,
    error: run.error,
    usage: run.usage,
    usageByWallet: run.usageByWallet,
  }
  const text =
    run.status === 'paused'
      ? `The run asks: ${run.question ?? '(no question)'}\nAnswer with answer_run { runId: "${run.id}", answer }.`
      : run.status === 'done' || run.status === 'stopped'
        ? typeof run.output === 'string'
          ? run.output
          : JSON.stringify(run.output)
        : `The run is ${run.status}${run.error ? `: ${String(run.error.message ?? run.error.code)}` : ''}.`
  return {
    content: [{ type: 'text', text }],
    structuredContent: facts,
    ...(['failed', 'cancelled', 'interrupted'].includes(run.status) ? { isError: true } : {}),
  }
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

/**
 * A Baton error (a refused plan, a budget, the database away) reaches the client as a tool error
 * it can read, naming its code. Any other error, whose text may hold what only the operator
 * should read (an address, a path), is a tool error naming an id it is logged under, as the
 * HTTP API names a request's id; the SDK would hand its text on. The protocol's own errors
 * (`McpError`) pass as they are.
 */
function wrapErrors(server: McpServer, log: FastifyBaseLogger): McpServer {
  const register = server.registerTool.bind(server)
  server.registerTool = ((name: string, config: never, handler: (...args: unknown[]) => unknown) =>
    register(name, config, (async (...args: unknown[]) => {
      try {
        return await handler(...args)
      } catch (error) {
        if (BatonError.isInstance(error)) return failure(`${error.code}: ${error.message}`)
        if (error instanceof McpError) throw error
        const errorId = randomUUID()
        log.error({ err: error, errorId, tool: name }, 'MCP tool call failed')
        return failure(
          `INTERNAL: Internal error: the server's log has it under error id ${errorId}.`,
        )
      }
    }) as never)) as typeof server.registerTool
  return server
}
