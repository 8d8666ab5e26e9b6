import { parseArgs } from 'node:util'
import { CliUsageError } from './cli-errors'
import type { CliIo } from './run-cli'

type Message = { jsonrpc: '2.0'; id?: string | number; method?: string }

/**
 * `mal mcp --server URL [--token T]`: Baton's MCP tools (`list_agents`, `delegate`,
 * `run_plan`, `answer_run`, `get_run`) over stdio, for MCP clients that only start
 * commands. Every message is passed to the server's `/mcp` (Streamable HTTP) and back, so
 * the tools are the server's own. Resolves with the exit code when stdin closes.
 *
 * @example
 * // claude_desktop_config.json: { "mcpServers": { "baton": { "command": "mal", "args": ["mcp", "--server", "http://127.0.0.1:8787"] } } }
 */
export async function runMcpBridge(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { server: { type: 'string' }, token: { type: 'string' } },
  })
  const server = values.server ?? io.env.BATON_SERVER_URL
  if (!server) throw new CliUsageError('mal mcp needs --server <url> (or BATON_SERVER_URL).')
  let endpoint: URL
  try {
    endpoint = new URL('/mcp', server)
  } catch {
    throw new CliUsageError(`--server must be a URL, got "${server}".`)
  }
  const token = values.token ?? io.env.BATON_API_TOKEN
  let sdk: {
    StdioServerTransport: typeof import('@modelcontextprotocol/sdk/server/stdio.js').StdioServerTransport
    StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport
  }
  try {
    sdk = {
      ...(await import('@modelcontextprotocol/sdk/server/stdio.js')),
      ...(await import('@modelcontextprotocol/sdk/client/streamableHttp.js')),
    }
  } catch {
    throw new CliUsageError(
      'mal mcp needs @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk',
    )
  }
  const remote = new sdk.StreamableHTTPClientTransport(endpoint, {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  })
  const local = new sdk.StdioServerTransport(io.stdin, io.stdout as never)
  const closed = new Promise<void>((resolve) => {
    local.onclose = () => resolve()
    remote.onclose = () => resolve()
    io.signal?.addEventListener('abort', () => resolve(), { once: true })
  })
  local.onmessage = (message) => {
    remote.send(message as never).catch((error: unknown) => {
      const request = message as Message
      // A request gets an answer even when the server cannot be reached.
      if (request.id !== undefined && request.method) {
        void local.send({
          jsonrpc: '2.0',
          id: request.id,
          error: {
            code: -32000,
            message: `Baton server ${endpoint.origin} unreachable: ${(error as Error).message}`,
          },
        } as never)
      }
    })
  }
  remote.onmessage = (message) => {
    void local.send(message as never)
  }
  remote.onerror = (error) => io.stderr.write(`mal mcp: ${error.message}\n`)
  await remote.start()
  await local.start()
  io.stderr.write(`mal mcp: Baton's tools from ${endpoint.href}, over stdio\n`)
  await closed
  await Promise.allSettled([remote.close(), local.close()])
  return 0
}
