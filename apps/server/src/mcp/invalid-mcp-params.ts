import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type * as McpTypes from '@modelcontextprotocol/sdk/types.js'

/** A JSON-RPC error answer to one request whose params are not what its method takes. */
export type InvalidMcpParams = {
  jsonrpc: '2.0'
  id: string | number
  error: { code: -32602; message: string; data: { field: string } }
}

type RequestSchema = (typeof McpTypes.ClientRequestSchema.options)[number]

// Each client request method's schema, made on first use (the SDK is loaded on demand).
let schemas: Map<string, RequestSchema> | undefined

/**
 * The `-32602` answer to a client request (`tools/call`, `initialize`, `prompts/get`, …) whose
 * params do not match its method's schema in the MCP SDK, naming the first field that is wrong;
 * undefined for a request whose params fit, for a notification, a response, a batch (each of
 * its requests is checked by `refuseInvalidMcpParams`), a method the SDK does not define, or
 * one the server does not `answer` (its answer is -32601, whatever the params). The SDK's own
 * dispatch answers such a request `-32603` (internal error, typescript-sdk issue #2284),
 * telling the caller the server broke.
 *
 * @example
 * invalidMcpParams(types, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }, () => true)
 * // { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params for tools/call: params.name: …', data: { field: 'params.name' } } }
 */
export function invalidMcpParams(
  types: typeof McpTypes,
  body: unknown,
  answers: (method: string) => boolean,
): InvalidMcpParams | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
  const { id, method } = body as { id?: unknown; method?: unknown }
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return
  const schema = schemasOf(types).get(method)
  const parsed = schema?.safeParse(body)
  if (!parsed || parsed.success || !answers(method)) return undefined
  const [issue] = parsed.error.issues
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : 'params'
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32602,
      message: `Invalid params for ${method}: ${field}: ${issue?.message ?? 'not what the method takes'}.`,
      data: { field },
    },
  }
}

function schemasOf(types: typeof McpTypes): Map<string, RequestSchema> {
  schemas ??= new Map(
    types.ClientRequestSchema.options.map((schema) => [schema.shape.method.value, schema]),
  )
  return schemas
}

/**
 * Makes `transport` answer each request it hands on (alone or one of a batch) whose params its
 * method does not take with `invalidMcpParams`'s `-32602`, instead of handing it to the server
 * connected to it; everything else goes on as before. Call it after `server.connect(transport)`,
 * which sets the handler it wraps.
 *
 * @example
 * await server.connect(transport)
 * refuseInvalidMcpParams(transport, types, answers)
 */
export function refuseInvalidMcpParams(
  transport: Transport,
  types: typeof McpTypes,
  answers: (method: string) => boolean,
): void {
  const dispatch = transport.onmessage
  transport.onmessage = (message, extra) => {
    const invalid = invalidMcpParams(types, message, answers)
    if (invalid === undefined) return dispatch?.(message, extra)
    // What the server's own dispatch does with an answer it could not send (a client gone).
    transport.send(invalid).catch((error: unknown) => {
      transport.onerror?.(error instanceof Error ? error : new Error(String(error)))
    })
  }
}
