import { z } from 'zod'
import { ValidationError } from '../errors/baton-error'
import { TrustTier } from '../schemas/agent-card'
import { issuesOf } from '../schemas/parse'

const ServerName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1-32 letters, digits, "_" or "-"')

const Common = {
  /** Agents whose card's trust tier is below this do not get the server's tools (default `safe`). */
  minTrustTier: TrustTier.optional(),
  /** USD charged to the calling agent's budget per call, besides the call itself. */
  pricePerCallUsd: z.number().min(0).max(1000).optional(),
  /** Each call is cancelled after this long (default 30 000 ms). */
  timeoutMs: z.number().int().min(1).max(3_600_000).optional(),
}

/** A server started as a child process, spoken to over stdin/stdout. */
export const McpStdioServerConfig = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  cwd: z.string().optional(),
  /** Variables set for the server, on top of the allowlisted ones of this process. */
  env: z.record(z.string(), z.string()).default({}),
  /** Variables of this process passed on as they are, besides PATH, HOME, USER, LOGNAME, SHELL and TERM. */
  envAllowlist: z.array(z.string()).optional(),
  ...Common,
})

/** A server reached over Streamable HTTP. */
export const McpHttpServerConfig = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
  ...Common,
})

export const McpServerConfig = z.union([McpStdioServerConfig, McpHttpServerConfig])
export type McpServerConfig = z.input<typeof McpServerConfig>
export type ParsedMcpServerConfig = z.output<typeof McpServerConfig>

/** The format Claude Desktop, Claude Code and Cursor use: `{ "mcpServers": { name: config } }`. */
export const McpSettings = z.object({
  mcpServers: z.record(ServerName, McpServerConfig),
})
export type McpSettings = z.input<typeof McpSettings>

/**
 * Checks an MCP settings object (the `mcpServers` format of Claude Desktop, Claude Code and
 * Cursor, with Baton's `minTrustTier`, `pricePerCallUsd` and `timeoutMs`).
 *
 * @example
 * parseMcpSettings({ mcpServers: { files: { command: 'node', args: ['files-server.js'] } } })
 */
export function parseMcpSettings(value: unknown): z.output<typeof McpSettings> {
  const result = McpSettings.safeParse(value)
  if (!result.success) throw new ValidationError('MCP settings', issuesOf(result.error))
  return result.data
}
