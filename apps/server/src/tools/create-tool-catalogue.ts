import {
  type Agent,
  type Budget,
  isToolPattern,
  matchesToolPattern,
  type TrustTier,
} from '@baton/core'
import type { McpCallEvent, McpServers, McpSettings } from '@baton/core/mcp'
import { asSchema, type ToolSet } from 'ai'
import { type BuiltinTool, builtinTools as serverTools, workspaceTools } from './builtin-tools'

/** One tool the server can grant, as `GET /api/v1/tools` lists it. */
export type CatalogueTool = {
  name: string
  source: 'builtin' | 'module' | 'mcp'
  description: string
  inputSchema?: unknown
  /** The MCP server it comes from. */
  server?: string
  /** Agents below it do not get the tool (MCP servers' `minTrustTier`). */
  minTrustTier?: TrustTier
  pricePerCallUsd?: number
  /** For built-in tools: when the server grants it. */
  grantedWhen?: string
}

export interface ToolCatalogue {
  list(): Promise<{ tools: CatalogueTool[]; unavailable: { server: string; message: string }[] }>
  /** What is wrong with a card's `tools`: each entry the server cannot grant, by index. */
  check(tools: readonly string[]): Promise<{ path: string; message: string }[]>
  /** The module's and MCP servers' tools an agent's card lists, for one run on `budget`. */
  toolsFor(
    agent: Agent,
    options: { budget: Budget; workspaceDir?: string; onCall?: (event: McpCallEvent) => void },
  ): Promise<ToolSet>
  /** Stops the MCP servers. */
  close(): Promise<void>
}

/**
 * The server's tools: its built-in ones, an operator's module of AI SDK tools, and the tools
 * of the MCP servers in its settings (started on first use).
 *
 * @example
 * const catalogue = createToolCatalogue({ mcp: await loadMcpSettings('mcp.json'), moduleTools })
 */
export function createToolCatalogue(
  options: {
    mcp?: McpSettings
    moduleTools?: ToolSet
    /** The workspace kinds this server gives out (`browser`, `display`): their tools are granted too. */
    workspaceKinds?: readonly string[]
  } = {},
): ToolCatalogue {
  const moduleTools = options.moduleTools ?? {}
  const builtinTools = [...serverTools, ...workspaceTools(options.workspaceKinds ?? [])]
  const loading = options.mcp ? openMcpServers(options.mcp) : undefined
  // Awaited where it is used, so a failed load is reported there, not as an unhandled rejection.
  loading?.catch(() => {})
  const builtin = new Map<string, BuiltinTool>(builtinTools.map((tool) => [tool.name, tool]))

  return {
    async list() {
      const mcp = await loading
      const tools: CatalogueTool[] = builtinTools.map((tool) => ({ ...tool, source: 'builtin' }))
      for (const [name, definition] of Object.entries(moduleTools)) {
        tools.push({
          name,
          source: 'module',
          description: definition.description ?? '',
          inputSchema: await asSchema(definition.inputSchema).jsonSchema,
        })
      }
      const listed = mcp ? await mcp.servers.listTools() : { tools: [], unavailable: [] }
      for (const tool of listed.tools) {
        tools.push({
          name: tool.name,
          source: 'mcp',
          description: tool.description,
          inputSchema: tool.inputSchema,
          server: tool.server,
          minTrustTier: tool.minTrustTier,
          pricePerCallUsd: tool.pricePerCallUsd,
        })
      }
      return { tools, unavailable: listed.unavailable }
    },

    async check(names) {
      const mcp = await loading
      const issues: { path: string; message: string }[] = []
      let mcpTools: Set<string> | undefined
      let down: Set<string> | undefined
      for (const [index, name] of names.entries()) {
        if (builtin.has(name) || Object.hasOwn(moduleTools, name)) continue
        const server = mcp?.serverOf(name)
        if (!server) {
          issues.push({
            path: `tools[${index}]`,
            message: `"${name}" is not a tool this server can grant (see GET /api/v1/tools)`,
          })
          continue
        }
        if (isToolPattern(name)) continue
        if (!mcpTools) {
          const listed = await mcp!.servers.listTools()
          mcpTools = new Set(listed.tools.map((tool) => tool.name))
          down = new Set(listed.unavailable.map((entry) => entry.server))
        }
        // A server that cannot be reached now is not proof the tool is gone.
        if (!mcpTools.has(name) && !down?.has(server)) {
          issues.push({
            path: `tools[${index}]`,
            message: `MCP server "${server}" has no tool "${name}" (see GET /api/v1/tools)`,
          })
        }
      }
      return issues
    },

    async toolsFor(agent, runOptions) {
      const tools: ToolSet = {}
      for (const [name, definition] of Object.entries(moduleTools)) {
        if (agent.tools.some((entry) => matchesToolPattern(entry, name))) tools[name] = definition
      }
      if (loading && agent.tools.some((entry) => entry.startsWith('mcp__'))) {
        const mcp = await loading
        Object.assign(
          tools,
          await mcp.servers.toolsFor(agent, {
            budget: runOptions.budget,
            ...(runOptions.workspaceDir ? { workspaceDir: runOptions.workspaceDir } : {}),
            ...(runOptions.onCall ? { onCall: runOptions.onCall } : {}),
          }),
        )
      }
      return tools
    },

    async close() {
      await (await loading)?.servers.close()
    },
  }
}

/**
 * The MCP client of `@baton/core/mcp` (and the MCP SDK under it, ~4 MiB of heap) is loaded
 * only by a server whose settings name MCP servers.
 */
async function openMcpServers(
  settings: McpSettings,
): Promise<{ servers: McpServers; serverOf(tool: string): string | undefined }> {
  const { createMcpServers, mcpServerPrefix } = await import('@baton/core/mcp')
  const servers = createMcpServers(settings)
  return {
    servers,
    serverOf: (tool) => servers.names.find((server) => tool.startsWith(mcpServerPrefix(server))),
  }
}
