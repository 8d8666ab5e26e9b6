import { Agent } from '../schemas/agent'
import { issuesOf } from '../schemas/parse'
import type { Wallet } from '../wallet/parse-wallet'
import { freezeAgent } from './freeze-agent'
import { agentUrl, type RegistryTarget, scrubSecrets, shownUrl } from './registry-target'
import { RegistryUnavailableError } from './registry-unavailable-error'
import { UnregisteredAgentError } from './unregistered-agent-error'

/** No registry record comes near this; a bigger body is a misbehaving server. */
const MAX_BODY_BYTES = 1024 * 1024

const TIMED_OUT = Symbol('timed out')

export type FetchRegisteredAgentOptions = {
  fetch: typeof globalThis.fetch
  target: RegistryTarget
  wallet: Wallet
  timeoutMs: number
  /** Aborts the request when nobody waits for it any more. */
  signal: AbortSignal
}

/**
 * One `GET {base}/agent/{wallet}`: resolves only on a 200 whose body is the agent asked for,
 * and fails closed on everything else.
 */
export async function fetchRegisteredAgent(options: FetchRegisteredAgentOptions): Promise<Agent> {
  const { target, wallet, timeoutMs } = options
  const url = agentUrl(target, wallet)
  const shown = shownUrl(url)
  const unavailable = (reason: string, extra: { status?: number; cause?: unknown } = {}) =>
    new RegistryUnavailableError(
      { wallet, url: shown, reason: scrubSecrets(target, reason), status: extra.status },
      extra.cause === undefined ? {} : { cause: extra.cause },
    )

  const timeout = new AbortController()
  const timer = setTimeout(() => timeout.abort(TIMED_OUT), timeoutMs)
  const signal = AbortSignal.any([options.signal, timeout.signal])
  const failure = (error: unknown) =>
    timeout.signal.aborted
      ? unavailable(`no answer within ${timeoutMs} ms`, { cause: error })
      : options.signal.aborted
        ? unavailable('the look-up was abandoned by every caller', { cause: error })
        : unavailable(`network error (${describe(error)})`, { cause: error })

  try {
    let response: Response
    try {
      response = await options.fetch(url, {
        method: 'GET',
        // Fail closed: a registry that redirects is not answering for the agent at this URL.
        redirect: 'error',
        headers: {
          accept: 'application/json',
          ...(target.authorization ? { authorization: target.authorization } : {}),
        },
        signal,
      })
    } catch (error) {
      throw failure(error)
    }

    if (response.status === 404) {
      await discard(response)
      throw new UnregisteredAgentError({
        wallet,
        reason: `the registry at ${shown} answered 404`,
        url: shown,
        status: 404,
      })
    }
    if (response.status !== 200) {
      await discard(response)
      throw unavailable(`it answered HTTP ${response.status}`, { status: response.status })
    }

    let text: string
    try {
      text = await readText(response)
    } catch (error) {
      throw error instanceof BodyTooLargeError
        ? unavailable(`it answered 200 with a body over ${MAX_BODY_BYTES} bytes`, { status: 200 })
        : failure(error)
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch (error) {
      throw unavailable('it answered 200 with a body that is not JSON', {
        status: 200,
        cause: error,
      })
    }
    const parsed = Agent.safeParse(body)
    if (!parsed.success) {
      const fields = issuesOf(parsed.error)
        .map((issue) => issue.path || '(body)')
        .join(', ')
      throw unavailable(`it answered 200 with a body that is not a valid agent (${fields})`, {
        status: 200,
      })
    }
    if (parsed.data.wallet !== wallet) {
      throw unavailable(
        `it answered 200 with the agent of another wallet (${parsed.data.wallet})`,
        {
          status: 200,
        },
      )
    }
    // Cached and shared by every caller: frozen, so none of them can change it for the others.
    return freezeAgent(parsed.data)
  } finally {
    clearTimeout(timer)
  }
}

class BodyTooLargeError extends Error {}

async function readText(response: Response): Promise<string> {
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {})
      throw new BodyTooLargeError()
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return new TextDecoder().decode(bytes)
}

/** Frees the connection; the body of a refusal carries nothing the caller needs. */
async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => {})
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause
  if (typeof cause?.code === 'string') return cause.code
  if (typeof cause?.message === 'string' && cause.message) return cause.message
  return error instanceof Error ? error.message : String(error)
}
