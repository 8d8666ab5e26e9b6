import type { Redis } from 'ioredis'
import { createRunNotifier, type RunDelta, type RunNotifier } from '../services/run-notifier'

// Marks a message carrying a live-only run event rather than a run id (no run id starts so).
const DELTA_MARK = '\u0001delta:'

export type RedisRunNotifierOptions = {
  /** Publishes this process's notices. */
  publisher: Redis
  /** A connection of its own (a subscribed connection can do nothing else). */
  subscriber: Redis
  /** The channel every process of the deployment shares. */
  channel: string
  /** This process's name: its own notices are delivered here at once, not through Redis. */
  origin: string
  /**
   * Listeners are also woken this often even without a notice, so a notice lost while Redis
   * was down only delays a reader (who reads the stored events) and never stalls it.
   */
  sweepMs?: number
}

export type RedisRunNotifier = RunNotifier & { close(): Promise<void> }

/**
 * A run notifier shared by every process: a run's new events, stored in PostgreSQL by the
 * process executing it, wake SSE readers in every other process through Redis pub/sub. Readers
 * read the events from the database, so `Last-Event-ID` stays exact whoever executes the run.
 * A notice goes to the run's own channel (`<channel>:<run id>`), which a process subscribes to
 * only while it has a reader of that run: a process with none receives nothing, so a notice
 * costs the processes that do not read the run nothing (with every process receiving every
 * run's notices, each worker added cost every other one CPU per run). A run's live-only
 * events (a step's streamed text) travel whole through the shared channel, which every
 * process follows, so a reader who joins late anywhere is given the text so far.
 *
 * @example
 * const notifier = await createRedisRunNotifier({ publisher, subscriber, channel: 'baton:run-events', origin: 'host:42' })
 * const off = notifier.listen(runId, () => readStoredEvents())
 */
export async function createRedisRunNotifier(
  options: RedisRunNotifierOptions,
): Promise<RedisRunNotifier> {
  const local = createRunNotifier()
  const listened = new Map<string, number>()
  const prefix = `${options.origin}\n`
  const runChannel = `${options.channel}:`
  options.subscriber.on('message', (channel: string, message: string) => {
    if (message.startsWith(prefix)) return
    // A notice on a run's channel: the channel names the run.
    if (channel.startsWith(runChannel)) return local.notify(channel.slice(runChannel.length))
    if (channel !== options.channel) return
    const body = message.slice(message.indexOf('\n') + 1)
    // A live-only event (a step's streamed text) travels whole; a notice is a run id.
    if (body.startsWith(DELTA_MARK)) {
      try {
        local.delta(JSON.parse(body.slice(DELTA_MARK.length)) as RunDelta)
      } catch {
        // Not one of ours: ignored.
      }
      return
    }
    local.notify(body)
  })
  await options.subscriber.subscribe(options.channel)
  const sweep = setInterval(() => {
    for (const runId of listened.keys()) local.notify(runId)
  }, options.sweepMs ?? 1_000)
  sweep.unref()

  return {
    listen(runId, listener) {
      const count = listened.get(runId) ?? 0
      listened.set(runId, count + 1)
      // A notice missed while the subscription is on its way is made up for by the sweep (and
      // the reader reads the stored events once it listens); ioredis subscribes again after a
      // reconnect.
      if (count === 0) options.subscriber.subscribe(`${runChannel}${runId}`).catch(() => {})
      const off = local.listen(runId, listener)
      return () => {
        off()
        const left = (listened.get(runId) ?? 1) - 1
        if (left > 0) return void listened.set(runId, left)
        listened.delete(runId)
        options.subscriber.unsubscribe(`${runChannel}${runId}`).catch(() => {})
      }
    },
    notify(runId) {
      local.notify(runId)
      options.publisher.publish(`${runChannel}${runId}`, prefix).catch(() => {
        // Redis is down: readers elsewhere catch up at their next sweep.
      })
    },
    listenDeltas: (runId, listener) => local.listenDeltas(runId, listener),
    textSoFar: (runId) => local.textSoFar(runId),
    forget: (runId) => local.forget(runId),
    delta(delta) {
      local.delta(delta)
      // Coalesced upstream (a few per second per streaming step), so each may travel whole.
      options.publisher
        .publish(options.channel, `${prefix}${DELTA_MARK}${JSON.stringify(delta)}`)
        .catch(() => {
          // Redis is down: readers elsewhere miss live text, never a stored event.
        })
    },
    async close() {
      clearInterval(sweep)
      await options.subscriber.unsubscribe(options.channel).catch(() => {})
    },
  }
}
