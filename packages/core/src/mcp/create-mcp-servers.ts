import { jsonSchema, type ToolSet, tool } from 'ai'
import type { Budget } from '../schemas'
import type { TrustTier } from '../schemas/agent-card'
import { isTrustTierAtLeast } from '../schemas/trust-tier-check'
import { matchesToolPattern } from '../tools/tool-patterns'
import { withToolSource } from '../tools/tool-source'
import { type McpSettings, parseMcpSettings } from './mcp-config'
import { type McpBackoff, McpConnection, type McpConnectionState } from './mcp-connection'
import { toToolOutput } from './mcp-result'
import { mcpServerPrefix, mcpToolName } from './mcp-tool-name'

/** One tool an MCP server offers, as Baton names and gates it. */
export type McpToolInfo = {
  /** The name models and cards use: `mcp__<server>__<tool>`. */
  name: string
  server: string
  /** The tool's own name on its server. */
  tool: string
  description: string
  inputSchema: Record<string, unknown>
  /** Agents below this tier do not get it. */
  minTrustTier: TrustTier
  /** USD charged per call besides the call itself. */
  pricePerCallUsd: number
}

/** What a run's MCP tool call reports, for run events, logs and traces. */
export type McpCallEvent = {
  name: string
  server: string
  tool: string
  wallet: string | undefined
  durationMs: number
  /** The error code or message when the call failed. */
  error?: string
}

export type McpServerStatus = {
  server: string
  state: McpConnectionState
  pid?: number
  lastError?: string
}

/** The agent a run's MCP tools are for: its card gates them. */
export type McpToolsAgent = {
  wallet?: string
  tools?: readonly string[]
  agentCard?: { trustTier?: TrustTier }
}

export type McpToolsOptions = {
  /** Each call is charged to it (a call, plus the server's `pricePerCallUsd`), under the agent's wallet. */
  budget?: Budget
  /** Where images and blobs a tool returns are written (none: they are described in words). */
  workspaceDir?: string
  /** Called after each call, successful or not. */
  onCall?: (event: McpCallEvent) => void
}

export interface McpServers {
  /** The configured servers' names. */
  readonly names: readonly string[]
  /**
   * Every tool of the servers (started as needed), with the servers that could not be
   * reached and why.
   */
  listTools(): Promise<{ tools: McpToolInfo[]; unavailable: { server: string; message: string }[] }>
  /**
   * The AI SDK tools an agent may call, for `runAgent`'s `extraTools`: the card's
   * `mcp__<server>__<tool>` names and `mcp__<server>__*` patterns, from servers whose
   * `minTrustTier` the agent meets. Only the servers the card names are started.
   */
  toolsFor(agent: McpToolsAgent, options?: McpToolsOptions): Promise<ToolSet>
  status(): McpServerStatus[]
  /** Stops every server (its process, for stdio) and closes every connection. */
  close(): Promise<void>
}

/**
 * The MCP servers of a settings object (`{ mcpServers: { name: { command, args } | { url } } }`,
 * the format of Claude Desktop, Claude Code and Cursor), connected on first use.
 *
 * @example
 * const mcp = createMcpServers({ mcpServers: { files: { command: 'node', args: ['files.js'] } } })
 * const extraTools = await mcp.toolsFor(agent, { budget })
 * await runAgent(agent, 'Read notes.txt [[tool:mcp__files__read_file {"path":"notes.txt"}]]', { budget, extraTools })
 */
export function createMcpServers(
  settings: McpSettings,
  options: { backoff?: McpBackoff; clientInfo?: { name: string; version: string } } = {},
): McpServers {
  const parsed = parseMcpSettings(settings)
  const connections = new Map<string, McpConnection>()
  for (const [name, config] of Object.entries(parsed.mcpServers)) {
    connections.set(
      name,
      new McpConnection({
        name,
        config,
        ...(options.backoff ? { backoff: options.backoff } : {}),
        ...(options.clientInfo ? { clientInfo: options.clientInfo } : {}),
      }),
    )
  }

  const infosOf = async (connection: McpConnection): Promise<McpToolInfo[]> =>
    (await connection.listTools()).map((definition) => ({
      name: mcpToolName(connection.name, definition.name),
      server: connection.name,
      tool: definition.name,
      description: definition.description ?? '',
      inputSchema: definition.inputSchema as Record<string, unknown>,
      minTrustTier: connection.config.minTrustTier ?? 'safe',
      pricePerCallUsd: connection.config.pricePerCallUsd ?? 0,
    }))

  return {
    names: [...connections.keys()],
    async listTools() {
      const tools: McpToolInfo[] = []
      const unavailable: { server: string; message: string }[] = []
      await Promise.all(
        [...connections.values()].map(async (connection) => {
          try {
            tools.push(...(await infosOf(connection)))
          } catch (error) {
            unavailable.push({
              server: connection.name,
              message: error instanceof Error ? error.message : String(error),
            })
          }
        }),
      )
      tools.sort((a, b) => a.name.localeCompare(b.name))
      return { tools, unavailable }
    },
    async toolsFor(agent, toolOptions = {}) {
      const listed = agent.tools ?? []
      const tier = agent.agentCard?.trustTier ?? 'low'
      const wanted = [...connections.values()].filter(
        (connection) =>
          listed.some((name) => name.startsWith(mcpServerPrefix(connection.name))) &&
          isTrustTierAtLeast(tier, connection.config.minTrustTier ?? 'safe'),
      )
      const tools: ToolSet = {}
      for (const connection of wanted) {
        for (const info of await infosOf(connection)) {
          if (!listed.some((pattern) => matchesToolPattern(pattern, info.name))) continue
          // Marked with its server and own name, which the agent loop reports with each call.
          tools[info.name] = withToolSource(
            toSdkTool(connection, info, agent.wallet, toolOptions),
            { server: info.server, tool: info.tool },
          )
        }
      }
      return tools
    },
    status() {
      return [...connections.values()].map((connection) => ({
        server: connection.name,
        state: connection.state,
        ...(connection.pid ? { pid: connection.pid } : {}),
        ...(connection.lastError ? { lastError: connection.lastError } : {}),
      }))
    },
    async close() {
      await Promise.all([...connections.values()].map((connection) => connection.close()))
    },
  }
}

function toSdkTool(
  connection: McpConnection,
  info: McpToolInfo,
  wallet: string | undefined,
  options: McpToolsOptions,
) {
  return tool({
    description: info.description || `${info.tool} (MCP server ${info.server})`,
    // The server's JSON Schema goes to the model as it is.
    inputSchema: jsonSchema<Record<string, unknown>>(info.inputSchema as never),
    execute: async (input, { abortSignal }) => {
      const started = performance.now()
      // Held before the call and settled after it, whatever it answered: it was made.
      const reservation = options.budget?.reserve({ calls: 1, costUsd: info.pricePerCallUsd })
      let sent = false
      try {
        const result = await connection.callTool(info.tool, input ?? {}, {
          ...(abortSignal ? { signal: abortSignal } : {}),
          onSent: () => {
            sent = true
          },
        })
        const output = await toToolOutput(result, {
          server: info.server,
          tool: info.tool,
          ...(options.workspaceDir ? { workspaceDir: options.workspaceDir } : {}),
        })
        options.onCall?.(event(info, wallet, started))
        return output.structured === undefined && !output.files ? output.text : output
      } catch (error) {
        options.onCall?.(event(info, wallet, started, error))
        throw error
      } finally {
        if (reservation) {
          if (sent) {
            reservation.settle(
              { calls: 1, costUsd: info.pricePerCallUsd },
              wallet ? { wallet } : {},
            )
          } else reservation.release()
        }
      }
    },
  })
}

function event(
  info: McpToolInfo,
  wallet: string | undefined,
  started: number,
  error?: unknown,
): McpCallEvent {
  return {
    name: info.name,
    server: info.server,
    tool: info.tool,
    wallet,
    durationMs: Math.round((performance.now() - started) * 100) / 100,
    ...(error === undefined
      ? {}
      : {
          error:
            (error as { code?: string }).code ??
            (error instanceof Error ? error.message : String(error)),
        }),
  }
}
