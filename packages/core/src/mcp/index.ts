export {
  createMcpServers,
  type McpCallEvent,
  type McpServerStatus,
  type McpServers,
  type McpToolInfo,
  type McpToolsAgent,
  type McpToolsOptions,
} from './create-mcp-servers'
export {
  McpHttpServerConfig,
  McpServerConfig,
  McpSettings,
  McpStdioServerConfig,
  parseMcpSettings,
} from './mcp-config'
export { defaultMcpBackoff, type McpBackoff, type McpConnectionState } from './mcp-connection'
export { McpServerUnavailableError, McpTimeoutError, McpToolError } from './mcp-errors'
export { type McpToolOutput, toToolOutput } from './mcp-result'
export { mcpServerPrefix, mcpToolName } from './mcp-tool-name'
