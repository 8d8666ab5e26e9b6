import { redactUrl } from '@baton/core'
import { z } from 'zod'
import { resolveEndpoint, stripUserInfo } from '../http/fetch-list'
import { readServerSentEvents } from './read-server-sent-events'
import { SwarmRunEventSchema } from './swarm-run-event-schema'
import { SwarmRunRefusedError, SwarmServerError } from './swarm-runner-errors'
import type { SwarmRunEvent, SwarmRunner } from './types'

export type CreateHttpSwarmRunnerOptions = {
  /** The Baton server's base URL. */
  baseUrl: string
  /** Default: the global `fetch`. */
  fetch?: typeof fetch
  /** Sent with every request (e.g. an `authorization` header). */
  headers?: Record<string, string>
  /** How long `start` waits for the server (default 10 seconds). */
  timeoutMs?: number
}

const StartedRun = z.union([
  z.object({ runId: z.string().min(1) }),
  z.object({ id: z.string().min(1) }).transform(({ id }) => ({ runId: id })),
])

const ErrorBody = z
  .object({
    error: z.union([
      z.string(),
      z.object({ code: z.string().optional(), message: z.string().optional() }),
    ]),
  })
  .or(z.object({ code: z.string().optional(), message: z.string() }))

function refusal(where: string, status: number, body: unknown): SwarmRunRefusedError {
  const parsed = ErrorBody.safeParse(body)
  if (!parsed.success) return new SwarmRunRefusedError({ where, status })
  const value = 'error' in parsed.data ? parsed.data.error : parsed.data
  const { code, message } = typeof value === 'string' ? { code: undefined, message: value } : value
  return new SwarmRunRefusedError({
    where,
    status,
    ...(code ? { code } : {}),
    ...(message ? { message } : {}),
  })
}

/**
 * A `SwarmRunner` that runs swarms on a Baton server: `POST {baseUrl}/swarms/:id/runs` with
 * `{ task }` answers `{ runId }`, and `GET {baseUrl}/runs/:runId/events` streams the run's
 * events as server-sent events (each `data:` one JSON event, from the first on).
 * `cancel` is `POST {baseUrl}/runs/:runId/cancel`. It targets the upcoming Baton server API.
 *
 * @example
 * const runner = createHttpSwarmRunner({ baseUrl: 'http://127.0.0.1:8787' })
 * const swarms = createAdvancedAgentStore({ runner })
 */
export function createHttpSwarmRunner(options: CreateHttpSwarmRunnerOptions): SwarmRunner {
  const doFetch = options.fetch ?? fetch
  const request = (path: string) => {
    const { url, headers } = resolveEndpoint(options.baseUrl, path)
    return { url, headers: { ...options.headers, ...headers }, where: redactUrl(url) }
  }
  const call = async (path: string, init: RequestInit & { method: string }) => {
    const target = request(path)
    const where = `${init.method} ${target.where}`
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000)
    try {
      const response = await doFetch(target.url, {
        ...init,
        headers: { ...target.headers, accept: 'application/json', ...init.headers },
        signal: timeout,
      })
      const text = await response.text()
      let body: unknown
      try {
        body = text ? JSON.parse(text) : undefined
      } catch {
        body = text
      }
      return { response, body, where }
    } catch (error) {
      const reason = timeout.aborted
        ? 'timed out'
        : `request failed (${stripUserInfo(String((error as Error).message))})`
      throw new SwarmServerError(where, reason, { cause: error })
    }
  }

  return {
    async start(swarmId, task) {
      const { response, body, where } = await call(`swarms/${encodeURIComponent(swarmId)}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ task }),
      })
      if (response.status >= 500) {
        throw new SwarmServerError(where, `the server answered ${response.status}`)
      }
      if (!response.ok) throw refusal(where, response.status, body)
      const started = StartedRun.safeParse(body)
      if (!started.success) throw new SwarmServerError(where, 'the answer has no run id')
      return started.data.runId
    },

    subscribe(runId, onEvent) {
      const controller = new AbortController()
      const target = request(`runs/${encodeURIComponent(runId)}/events`)
      const lost = (reason: string) => {
        if (controller.signal.aborted) return
        onEvent({
          type: 'swarm-error',
          runId,
          error: {
            code: 'SWARM_EVENTS_UNAVAILABLE',
            message: `The events of run "${runId}" from GET ${target.where} stopped: ${reason}.`,
          },
        })
      }
      void (async () => {
        let finished = false
        try {
          const response = await doFetch(target.url, {
            headers: { ...target.headers, accept: 'text/event-stream' },
            signal: controller.signal,
          })
          if (!response.ok || !response.body) {
            await response.body?.cancel()
            lost(`the server answered ${response.status}`)
            return
          }
          for await (const message of readServerSentEvents(response.body)) {
            const parsed = SwarmRunEventSchema.safeParse(safeJson(message.data))
            // Events this client does not understand (newer servers) are skipped, not fatal.
            if (!parsed.success || parsed.data.runId !== runId) continue
            const event = parsed.data as SwarmRunEvent
            onEvent(event)
            if (event.type === 'swarm-finish') {
              finished = true
              controller.abort()
              return
            }
          }
          if (!finished) lost('the stream ended before swarm-finish')
        } catch (error) {
          if (!finished) lost(stripUserInfo(String((error as Error).message)))
        }
      })()
      return () => controller.abort()
    },

    async cancel(runId) {
      const { response } = await call(`runs/${encodeURIComponent(runId)}/cancel`, {
        method: 'POST',
      })
      return response.ok
    },
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
