import type { Redis } from 'ioredis'
import {
  createRunNotifier,
  type DeltaListenOptions,
  KEPT_FOR_MS,
  MAX_KEPT_CHARACTERS,
  type RunDelta,
  type RunNotifier,
  stepKeyOf,
} from '../services/run-notifier'

// Marks a message carrying a piece of a step's streamed text rather than a notice.
const DELTA_MARK = '\u0001delta:'

/** A piece of a step's streamed text, and where in that step's text it starts. */
type Piece = { delta: RunDelta; offset: number }

export type RedisRunNotifierOptions = {
  /** Publishes this process's notices and streamed text. */
  publisher: Redis
  /** A connection of its own (a subscribed connection can do nothing else). */
  subscriber: Redis
  /** The prefix of the deployment's run channels (`<channel>:<run id>`) and keys. */
  channel: string
  /** This process's name: its own notices are delivered here at once, not through Redis. */
  origin: string
  /**
   * Listeners are also woken this often even without a notice, so a notice lost while Redis
   * was down only delays a reader (who reads the stored events) and never stalls it.
   */
  sweepMs?: number
  /** How long a run's streamed text is kept after its last piece (default 5 minutes). */
  keptForMs?: number
  /** Streamed text kept per run for late readers, in characters (default 256 Ki). */
  maxKeptCharacters?: number
}

export type RedisRunNotifier = RunNotifier & { close(): Promise<void> }

/**
 * A run notifier shared by every process: a run's new events, stored in PostgreSQL by the
 * process executing it, wake SSE readers in every other process through Redis pub/sub. Readers
 * read the events from the database, so `Last-Event-ID` stays exact whoever executes the run.
 *
 * Everything of a run goes to the run's own channel (`<channel>:<run id>`), which a process
 * subscribes to only while it has a reader of that run: a process with none receives nothing,
 * so neither a notice nor a piece of streamed text costs the processes that do not read the
 * run anything (were they sent to every process, each worker would add every other one CPU
 * per run and per piece of text). A step's streamed text (live only, never stored) is also
 * kept in Redis (`<channel>:text:<run id>`, per run at most `maxKeptCharacters`, until the run
 * ends or `keptForMs` after its last piece) for a reader who joins from the start on another
 * process; each piece says where it starts in its step's text, so a reader who gets a piece
 * both from that list and live is given it once.
 *
 * @example
 * const notifier = await createRedisRunNotifier({ publisher, subscriber, channel: 'baton:run-events', origin: 'host:42' })
 * const off = notifier.listen(runId, () => readStoredEvents())
 */
export async function createRedisRunNotifier(
  options: RedisRunNotifierOptions,
): Promise<RedisRunNotifier> {
  const { publisher, subscriber } = options
  const keptForMs = options.keptForMs ?? KEPT_FOR_MS
  const maxPerRun = options.maxKeptCharacters ?? MAX_KEPT_CHARACTERS
  // Notices, and the text of the runs executed here for their readers here from the start.
  const local = createRunNotifier({ keptForMs, maxKeptCharacters: maxPerRun })
  const prefix = `${options.origin}\n`
  const runChannel = `${options.channel}:`
  const textKey = (runId: string) => `${options.channel}:text:${runId}`
  // Readers here per run (of notices or text): the run's channel is subscribed while any is;
  // `subscribed` settles once Redis has confirmed it.
  const readers = new Map<string, { count: number; subscribed: Promise<unknown> }>()
  // The streamed-text listeners here, per run, fed by this process's runs and the channels.
  const pieceListeners = new Map<string, Set<(piece: Piece) => void>>()
  // Per run executed here: the characters published of each step, and those kept in Redis.
  const published = new Map<string, { kept: number; steps: Map<string, number> }>()

  const read = (runId: string): { subscribed: Promise<unknown>; unread: () => void } => {
    let reading = readers.get(runId)
    if (reading) reading.count += 1
    else {
      // A notice missed while the subscription is on its way is made up for by the sweep (and
      // the reader reads the stored events once it listens); ioredis subscribes again after a
      // reconnect.
      const subscribed = subscriber.subscribe(`${runChannel}${runId}`).catch(() => {})
      reading = { count: 1, subscribed }
      readers.set(runId, reading)
    }
    let ended = false
    const unread = () => {
      if (ended) return
      ended = true
      const current = readers.get(runId)
      if (!current) return
      current.count -= 1
      if (current.count > 0) return
      readers.delete(runId)
      subscriber.unsubscribe(`${runChannel}${runId}`).catch(() => {})
    }
    return { subscribed: reading.subscribed, unread }
  }
  const handPiece = (runId: string, piece: Piece) => {
    for (const listener of pieceListeners.get(runId) ?? []) listener(piece)
  }

  subscriber.on('message', (channel: string, message: string) => {
    if (message.startsWith(prefix) || !channel.startsWith(runChannel)) return
    const runId = channel.slice(runChannel.length)
    const body = message.slice(message.indexOf('\n') + 1)
    if (!body.startsWith(DELTA_MARK)) return local.notify(runId)
    const piece = parsePiece(body.slice(DELTA_MARK.length))
    if (piece) handPiece(runId, piece)
  })
  const sweep = setInterval(() => {
    for (const runId of readers.keys()) local.notify(runId)
  }, options.sweepMs ?? 1_000)
  sweep.unref()

  return {
    listen(runId, listener) {
      const { unread } = read(runId)
      const off = local.listen(runId, listener)
      return () => {
        off()
        unread()
      }
    },
    notify(runId) {
      local.notify(runId)
      publisher.publish(`${runChannel}${runId}`, prefix).catch(() => {
        // Redis is down: readers elsewhere catch up at their next sweep.
      })
    },
    listenDeltas(runId, listener, listenOptions: DeltaListenOptions = {}) {
      const { subscribed, unread } = read(runId)
      // Per step, the characters of its text handed to this listener.
      const seen = new Map<string, number>()
      let open = true
      const hand = (delta: RunDelta) => {
        if (!open) return
        try {
          listener(delta)
        } catch {
          // A reader's failure (a closed socket) must not reach the run.
        }
      }
      const take = (piece: Piece) => {
        const text = unseen(seen, piece)
        if (text !== undefined)
          hand(text === piece.delta.text ? piece.delta : { ...piece.delta, text })
      }
      // Live pieces that come while the text so far is on its way from Redis wait for it.
      let waiting: Piece[] | undefined
      const onPiece = (piece: Piece) => {
        if (waiting) waiting.push(piece)
        else take(piece)
      }
      let listeners = pieceListeners.get(runId)
      if (!listeners) {
        listeners = new Set()
        pieceListeners.set(runId, listeners)
      }
      listeners.add(onPiece)
      if (listenOptions.fromStart) {
        if (published.has(runId)) {
          // Executed here: its text so far is here, handed over in this turn.
          for (const delta of local.textSoFar(runId)) {
            seen.set(stepKeyOf(delta), delta.text.length)
            hand(delta)
          }
        } else {
          const queued: Piece[] = []
          waiting = queued
          // Read once subscribed: a piece published before is in the list, one after comes live.
          subscribed
            .then(() => publisher.lrange(textKey(runId), 0, -1))
            .then(
              (stored) => {
                for (const delta of merged(stored, seen)) hand(delta)
              },
              () => {
                // Redis is away: this reader gets the text from now on.
              },
            )
            .finally(() => {
              waiting = undefined
              for (const piece of queued) take(piece)
            })
        }
      }
      return () => {
        open = false
        listeners.delete(onPiece)
        if (listeners.size === 0 && pieceListeners.get(runId) === listeners) {
          pieceListeners.delete(runId)
        }
        unread()
      }
    },
    textSoFar: (runId) => local.textSoFar(runId),
    forget(runId) {
      local.forget(runId)
      published.delete(runId)
      publisher.del(textKey(runId)).catch(() => {
        // Redis is down: the text expires on its own.
      })
    },
    delta(delta) {
      local.delta(delta)
      let run = published.get(delta.runId)
      if (!run) {
        run = { kept: 0, steps: new Map() }
        published.set(delta.runId, run)
      }
      const step = stepKeyOf(delta)
      const offset = run.steps.get(step) ?? 0
      run.steps.set(step, offset + delta.text.length)
      const piece: Piece = { delta, offset }
      handPiece(delta.runId, piece)
      // Coalesced upstream (a few per second per streaming step), so each may travel whole.
      const message = JSON.stringify(piece)
      publisher
        .publish(`${runChannel}${delta.runId}`, `${prefix}${DELTA_MARK}${message}`)
        .catch(() => {
          // Redis is down: readers elsewhere miss live text, never a stored event.
        })
      if (run.kept + delta.text.length > maxPerRun) return
      run.kept += delta.text.length
      const key = textKey(delta.runId)
      publisher.rpush(key, message).catch(() => {})
      publisher.pexpire(key, keptForMs).catch(() => {})
    },
    async close() {
      clearInterval(sweep)
      const channels = [...readers.keys()].map((runId) => `${runChannel}${runId}`)
      if (channels.length > 0) await subscriber.unsubscribe(...channels).catch(() => {})
    },
  }
}

/**
 * The part of a piece not yet handed over (all of it past a gap: pieces missed before the
 * reader came), or undefined when all of it was; notes what has been.
 */
function unseen(seen: Map<string, number>, { delta, offset }: Piece): string | undefined {
  const step = stepKeyOf(delta)
  const handed = seen.get(step) ?? 0
  const end = offset + delta.text.length
  if (end <= handed) return undefined
  seen.set(step, end)
  return offset >= handed ? delta.text : delta.text.slice(handed - offset)
}

/** The stored pieces of a run as one delta per step (its first piece's `sequence`), in order. */
function merged(stored: string[], seen: Map<string, number>): RunDelta[] {
  const steps = new Map<string, RunDelta>()
  for (const raw of stored) {
    const piece = parsePiece(raw)
    if (!piece) continue
    const text = unseen(seen, piece)
    if (text === undefined) continue
    const step = stepKeyOf(piece.delta)
    const before = steps.get(step)
    steps.set(step, before ? { ...before, text: before.text + text } : { ...piece.delta, text })
  }
  return [...steps.values()].sort((a, b) => a.sequence - b.sequence)
}

/** A piece as this notifier sends it, or undefined for anything else on the channel. */
function parsePiece(raw: string): Piece | undefined {
  try {
    const piece = JSON.parse(raw) as Partial<Piece> | null
    if (
      typeof piece?.offset === 'number' &&
      typeof piece.delta?.text === 'string' &&
      typeof piece.delta.runId === 'string'
    ) {
      return piece as Piece
    }
  } catch {
    // Not one of ours: ignored.
  }
  return undefined
}
