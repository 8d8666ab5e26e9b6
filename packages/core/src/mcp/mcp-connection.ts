import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  ErrorCode,
  McpError,
  type Tool as McpTool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { callSignal } from '../agent/linked-signal'
import type { ParsedMcpServerConfig } from './mcp-config'
import { McpServerUnavailableError, McpTimeoutError } from './mcp-errors'

export type McpConnectionState = 'idle' | 'connecting' | 'ready' | 'restarting' | 'closed'

export type McpBackoff = { initialMs: number; maxMs: number }

/** The default wait before a dead server is started again, doubled per failure up to `maxMs`. */
export const defaultMcpBackoff: McpBackoff = { initialMs: 250, maxMs: 10_000 }

const DEFAULT_TIMEOUT_MS = 30_000
// Starting a server (a process that loads its SDK) and listing its tools are not tool calls:
// they get a bound of their own, not the per-call one.
const CONNECT_TIMEOUT_MS = 30_000

/**
 * One MCP server: connected on first use, its tool list cached until the server says it
 * changed, started again with backoff when it dies (calls in between fail fast with
 * `MCP_SERVER_UNAVAILABLE` naming it), closed with `close()`.
 */
export class McpConnection {
  readonly name: string
  readonly config: ParsedMcpServerConfig
  readonly #backoff: McpBackoff
  readonly #clientInfo: { name: string; version: string }
  #client: Client | undefined
  #transport: StdioClientTransport | StreamableHTTPClientTransport | undefined
  #connecting: Promise<Client> | undefined
  #tools: Promise<McpTool[]> | undefined
  #state: McpConnectionState = 'idle'
  #failures = 0
  #retryAt = 0
  #retryTimer: ReturnType<typeof setTimeout> | undefined
  #lastError: string | undefined

  constructor(options: {
    name: string
    config: ParsedMcpServerConfig
    backoff?: McpBackoff
    clientInfo?: { name: string; version: string }
  }) {
    this.name = options.name
    this.config = options.config
    this.#backoff = options.backoff ?? defaultMcpBackoff
    this.#clientInfo = options.clientInfo ?? { name: 'baton', version: '0.1.0' }
  }

  get state(): McpConnectionState {
    return this.#state
  }

  /** The stdio server's process id while it runs. */
  get pid(): number | undefined {
    return this.#transport instanceof StdioClientTransport
      ? (this.#transport.pid ?? undefined)
      : undefined
  }

  get lastError(): string | undefined {
    return this.#lastError
  }

  get timeoutMs(): number {
    return this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS
  }

  /** The server's tools, from the cache unless it changed (`notifications/tools/list_changed`). */
  async listTools(): Promise<McpTool[]> {
    const client = await this.#connected()
    this.#tools ??= this.#fetchTools(client).catch((error) => {
      this.#tools = undefined
      throw this.#unavailable('listing its tools failed', error)
    })
    return this.#tools
  }

  /**
   * Calls `tool`, cancelled (`notifications/cancelled`) on `signal` or after `timeoutMs`.
   * `onSent` runs once the server is reached and the request goes out.
   */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; onSent?: () => void } = {},
  ): Promise<{ content?: unknown; structuredContent?: unknown; isError?: unknown }> {
    const client = await this.#connected()
    options.onSent?.()
    // The SDK never takes its abort listener off the signal it is given; the caller's (a run's,
    // a budget's) outlives many calls, so the SDK gets one of the call's own.
    const own = options.signal ? callSignal(options.signal) : undefined
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.timeoutMs,
        ...(own ? { signal: own.signal } : {}),
      })) as { content?: unknown; structuredContent?: unknown; isError?: unknown }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason ?? error
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new McpTimeoutError({ server: this.name, tool, timeoutMs: this.timeoutMs })
      }
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
        throw this.#unavailable('the connection closed during the call', error)
      }
      throw error
    } finally {
      own?.dispose()
    }
  }

  async close(): Promise<void> {
    this.#state = 'closed'
    clearTimeout(this.#retryTimer)
    const client = this.#client
    this.#client = undefined
    this.#tools = undefined
    await client?.close().catch(() => {})
  }

  async #connected(): Promise<Client> {
    if (this.#state === 'closed') throw this.#unavailable('it was closed')
    if (this.#client) return this.#client
    if (this.#connecting) return this.#connecting
    const wait = this.#retryAt - Date.now()
    if (wait > 0) {
      throw this.#unavailable(
        `it is being restarted (next attempt in ${wait} ms${this.#lastError ? `; last error: ${this.#lastError}` : ''})`,
      )
    }
    this.#connecting = this.#connect().finally(() => {
      this.#connecting = undefined
    })
    return this.#connecting
  }

  async #connect(): Promise<Client> {
    this.#state = 'connecting'
    const transport = this.#makeTransport()
    const client = new Client(this.#clientInfo, { capabilities: {} })
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      this.#tools = undefined
    })
    client.onclose = () => {
      if (this.#client !== client) return
      this.#client = undefined
      this.#transport = undefined
      this.#tools = undefined
      this.#failed('the server closed the connection')
    }
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS })
    } catch (error) {
      await transport.close().catch(() => {})
      this.#failed(messageOf(error))
      throw this.#unavailable('it did not start or refused to connect', error)
    }
    // close() may have run while it connected.
    if ((this.#state as McpConnectionState) === 'closed') {
      await client.close().catch(() => {})
      throw this.#unavailable('it was closed')
    }
    this.#failures = 0
    this.#retryAt = 0
    this.#client = client
    this.#transport = transport
    this.#state = 'ready'
    return client
  }

  #makeTransport(): StdioClientTransport | StreamableHTTPClientTransport {
    const config = this.config
    if ('command' in config) {
      // The SDK passes on its safe defaults (PATH, HOME, USER, ...); nothing else of this
      // process reaches the server unless the allowlist names it.
      const inherited: Record<string, string> = {}
      for (const key of config.envAllowlist ?? []) {
        const value = process.env[key]
        if (value !== undefined) inherited[key] = value
      }
      return new StdioClientTransport({
        command: config.command,
        args: config.args,
        ...(config.cwd ? { cwd: config.cwd } : {}),
        env: { ...inherited, ...config.env },
        stderr: 'ignore',
      })
    }
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    })
  }

  /** Counts a failure and, for a process the server runs, schedules its restart. */
  #failed(reason: string): void {
    if (this.#state === 'closed') return
    this.#lastError = reason
    this.#failures += 1
    const delay = Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** (this.#failures - 1))
    this.#retryAt = Date.now() + delay
    this.#state = 'restarting'
    clearTimeout(this.#retryTimer)
    if (!('command' in this.config)) return
    this.#retryTimer = setTimeout(() => {
      this.#retryAt = 0
      this.#connected().catch(() => {})
    }, delay)
    this.#retryTimer.unref?.()
  }

  async #fetchTools(client: Client): Promise<McpTool[]> {
    const tools: McpTool[] = []
    let cursor: string | undefined
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, {
        timeout: CONNECT_TIMEOUT_MS,
      })
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor)
    return tools
  }

  #unavailable(reason: string, cause?: unknown): McpServerUnavailableError {
    return new McpServerUnavailableError({ server: this.name, reason, cause })
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
