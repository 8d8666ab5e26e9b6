import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { inspect } from 'node:util'
import { anthropicMessagesWire, anthropicStreamError } from './anthropic-messages-wire'
import { ollamaChatWire } from './ollama-chat-wire'
import { openAIChatWire } from './openai-chat-wire'
import { openAIResponsesWire } from './openai-responses-wire'
import { isError, type Turn } from './turns'
import type { Api, Wire } from './wire'

const routes: Record<string, Wire> = {
  'POST /v1/chat/completions': openAIChatWire,
  'POST /v1/responses': openAIResponsesWire,
  'POST /v1/messages': anthropicMessagesWire,
  'POST /api/chat': ollamaChatWire,
}

/**
 * The credential a request carried. Its value is kept private: a recorded request can be
 * printed, diffed or serialized by a failing test without the key showing.
 */
export class Credential {
  readonly #value: string | undefined
  constructor(value: string | undefined) {
    this.#value = value
  }
  get present(): boolean {
    return this.#value !== undefined && this.#value.length > 0
  }
  /** Whether the request carried exactly this key. */
  is(key: string): boolean {
    return this.#value === key
  }
  toJSON(): string {
    return this.present ? '[present]' : '[absent]'
  }
  [inspect.custom](): string {
    return `Credential ${this.toJSON()}`
  }
}

export type ScriptedTurn = Turn | ((request: RecordedRequest) => Turn)

export type RecordedRequest = {
  api: Api
  path: string
  /** The model id the request named. */
  model: string
  stream: boolean
  // biome-ignore lint/suspicious/noExplicitAny: a provider's request body, read by tests field by field
  body: any
  /** `performance.now()` when the request arrived. */
  receivedAt: number
  credential: Credential
}

export type ProviderServer = {
  /** `http://127.0.0.1:<port>`; the OpenAI and Anthropic APIs are under `/v1`, Ollama's under `/api`. */
  url: string
  requests: RecordedRequest[]
  /**
   * Queues answers: each request takes the next one (none left: a 500 saying so). A function
   * answers from the request it gets (to report as many tokens as it allowed, say).
   */
  script(...turns: ScriptedTurn[]): void
  close(): Promise<void>
}

/**
 * A real HTTP server on 127.0.0.1 speaking OpenAI Chat Completions and Responses, Anthropic
 * Messages and Ollama's `/api/chat` in their documented shapes, whole or streamed, with the
 * answers a test scripts. It records every request (the key only as a `Credential`), and with
 * `apiKey` refuses any other key with the provider's own 401.
 *
 * @example
 * const server = await startProviderServer({ apiKey: 'sk-test' })
 * server.script({ text: 'Hello there' }, { status: 429, headers: { 'retry-after': '0' } })
 */
export async function startProviderServer(
  options: { apiKey?: string } = {},
): Promise<ProviderServer> {
  const requests: RecordedRequest[] = []
  const turns: ScriptedTurn[] = []
  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)))
    })
  })

  async function answer(request: IncomingMessage, response: ServerResponse) {
    let text = ''
    for await (const chunk of request) text += chunk
    const wire = routes[`${request.method} ${request.url}`]
    if (!wire) {
      response.writeHead(404, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ error: `no route ${request.method} ${request.url}` }))
      return
    }
    const body = JSON.parse(text)
    const credential = new Credential(credentialOf(wire.api, request))
    const recorded: RecordedRequest = {
      api: wire.api,
      path: request.url ?? '',
      model: body.model,
      stream: body.stream === true,
      body,
      receivedAt: performance.now(),
      credential,
    }
    requests.push(recorded)
    if (options.apiKey !== undefined && !credential.is(options.apiKey)) {
      // OpenAI masks most of a wrong key in this message; a proxy in front of a provider may
      // not, so the fixture echoes it whole: the case Baton's errors must cope with.
      const received = credentialOf(wire.api, request) ?? ''
      const message =
        wire.api === 'anthropic-messages'
          ? 'invalid x-api-key'
          : `Incorrect API key provided: ${received}. You can find your API key at https://platform.openai.com/account/api-keys.`
      return sendJson(response, 401, wire.error(401, message))
    }
    const next = turns.shift() ?? {
      status: 500,
      message: `the fixture has no answer scripted for request ${requests.length}`,
    }
    const turn = typeof next === 'function' ? next(recorded) : next
    if (isError(turn)) {
      return sendJson(
        response,
        turn.status,
        wire.error(turn.status, turn.message ?? `fixture error ${turn.status}`),
        turn.headers,
      )
    }
    const context = {
      model: body.model,
      includeUsage: body.stream_options?.include_usage === true,
      sequence: requests.length,
    }
    if ('streamError' in turn && (wire.api !== 'anthropic-messages' || body.stream !== true)) {
      throw new Error('the fixture fails streams mid-way only on streamed Anthropic requests')
    }
    if (body.stream !== true && !('streamError' in turn)) {
      return sendJson(response, 200, wire.json(turn, context))
    }
    const pieces =
      'streamError' in turn ? anthropicStreamError(turn, context) : wire.stream(turn, context)
    response.writeHead(200, { 'content-type': wire.streamContentType, 'cache-control': 'no-cache' })
    // Written piece by piece, so the client reads a stream rather than one buffer.
    for (const piece of pieces) {
      response.write(piece)
      await nextTurn()
    }
    response.end()
  }

  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...more) => {
      turns.push(...more)
    },
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

function credentialOf(api: Api, request: IncomingMessage): string | undefined {
  if (api === 'anthropic-messages') return header(request, 'x-api-key')
  const authorization = header(request, 'authorization')
  return authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'content-type': 'application/json', ...headers })
  response.end(JSON.stringify(body))
}
