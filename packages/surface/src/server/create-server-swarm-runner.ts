import { SwarmRunEventSchema } from '../swarm-runner/swarm-run-event-schema'
import type { SwarmRunEvent, SwarmRunner } from '../swarm-runner/types'
import { openEventStream } from './open-event-stream'
import { requestJson, type ServerEndpoint } from './request-json'

type StartedRun = { run?: { id?: unknown }; runId?: unknown; id?: unknown }

function runIdOf(body: unknown): string | undefined {
  const started = (body ?? {}) as StartedRun
  const id = started.run?.id ?? started.runId ?? started.id
  return typeof id === 'string' && id ? id : undefined
}

/**
 * A `SwarmRunner` on a Baton server's API: `POST /api/v1/swarms/:id/runs { input }` starts a
 * run, `GET /api/v1/runs/:runId/events` streams its events (from the first, retried with
 * `Last-Event-ID` when the connection drops) and `POST /api/v1/runs/:runId/cancel` stops it.
 *
 * @example
 * const swarms = createAdvancedAgentStore({ runner: createServerSwarmRunner({ baseUrl }) })
 */
export function createServerSwarmRunner(endpoint: ServerEndpoint): SwarmRunner {
  return {
    async start(swarmId, task) {
      const body = await requestJson(
        endpoint,
        `api/v1/swarms/${encodeURIComponent(swarmId)}/runs`,
        { body: { input: task }, once: true },
      )
      const runId = runIdOf(body)
      if (!runId) throw new TypeError('The server started a swarm run but sent no run id.')
      return runId
    },
    subscribe(runId, onEvent) {
      let finished = false
      const stream = openEventStream({
        endpoint,
        path: `api/v1/runs/${encodeURIComponent(runId)}/events`,
        endsWhenServerCloses: true,
        onEvent: (message) => {
          let data: unknown
          try {
            data = JSON.parse(message.data)
          } catch {
            return
          }
          const parsed = SwarmRunEventSchema.safeParse(
            data && typeof data === 'object' ? { runId, ...data } : data,
          )
          // Plan events of the same run and events of newer servers are not swarm events.
          if (!parsed.success || finished) return
          const event = parsed.data as SwarmRunEvent
          if (event.type === 'swarm-finish' || event.type === 'swarm-error') {
            finished = true
            stream.close()
          }
          onEvent(event)
        },
      })
      return () => stream.close()
    },
    async cancel(runId) {
      await requestJson(endpoint, `api/v1/runs/${encodeURIComponent(runId)}/cancel`, {
        method: 'POST',
        body: {},
        once: true,
      })
      return true
    },
  }
}
