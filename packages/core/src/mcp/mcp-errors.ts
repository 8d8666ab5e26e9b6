import { BatonError } from '../errors/baton-error'

/** An MCP server could not be reached (not started, died, restarting, or refused to connect). */
export class McpServerUnavailableError extends BatonError {
  override name = 'McpServerUnavailableError'
  readonly server: string
  constructor(options: { server: string; reason: string; cause?: unknown }) {
    super(
      'MCP_SERVER_UNAVAILABLE',
      `MCP server "${options.server}" is unavailable: ${options.reason}`,
      {
        details: { server: options.server },
        cause: options.cause,
      },
    )
    this.server = options.server
  }
}

/** An MCP tool answered with `isError: true`; the model reads the message. */
export class McpToolError extends BatonError {
  override name = 'McpToolError'
  constructor(options: { server: string; tool: string; message: string }) {
    super('MCP_TOOL_ERROR', options.message, {
      details: { server: options.server, tool: options.tool },
    })
  }
}

/** An MCP tool call took longer than its server's `timeoutMs`; the call was cancelled. */
export class McpTimeoutError extends BatonError {
  override name = 'McpTimeoutError'
  constructor(options: { server: string; tool: string; timeoutMs: number }) {
    super(
      'MCP_TIMEOUT',
      `MCP tool "${options.tool}" of server "${options.server}" did not answer within ${options.timeoutMs} ms; the call was cancelled.`,
      { details: { ...options } },
    )
  }
}
