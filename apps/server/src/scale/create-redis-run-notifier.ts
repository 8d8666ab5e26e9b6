import { OldestFirst } from '@baton/core'
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
// Marks the executing process's answer to a reader who came: the text streamed so far.
const PAST_MARK = '\u0001past:'
// On the readers' channel: every process says again which runs it reads (one came, or came back).
const ROLL_CALL = '\u0001roll-call'
// Runs remembered at once as read elsewhere, and as notified here (the oldest go first).
const MAX_REMEMBERED_RUNS = 10_000

/** A piece of a step's streamed text, and where in that step's text it starts. */
type Piece = { delta: RunDelta; offset: number }

/** What a reader here is handed of a run from the other processes. */
type PieceListener = {
  /** A piece streamed live. */
  live(piece: Piece): void
  /** The executing process's text so far, each step's from its start. */
  past(pieces: Piece[]): void
}

export type RedisRunNotifierOptions = {
  /** Publishes this process's notices and streamed text. */
  publisher: Redis
  /** A connection of its own (a subscribed connection can do nothing else). */
  subscriber: Redis
  /** The prefix of the deployment's run channels (`<channel>:<run id>`). */
  channel: string
  /** This process's name: its own notices are delivered here at once, not through Redis. */
  origin: string
  /**
   * Listeners are also woken this often even without a notice, so a notice lost while Redis
   * was down only delays a reader (who reads the stored events) and never stalls it.
   */
  sweepMs?: number
  /**
   * A process with readers of a run says so again this often while they read (default 30 s),
   * besides at once when a process starts or its connection to Redis comes back (it asks).
   */
  announceEveryMs?: number
  /**
   * How long a run counts as read elsewhere after the last word of it (default 3 ×
   * `announceEveryMs`).
   */
  readForMs?: number
  /**
   * How long the executing process keeps a run's streamed text after its last piece (default 5
   * minutes).
   */
  keptForMs?: number
  /** Streamed text kept per run for readers who come later, in characters (default 256 Ki). */
  maxKeptCharacters?: number
  /**
   * How long a reader from the start who came while the run was already streaming waits for
   * the executing process's text so far before it takes the live text as it is (default 2 s).
   */
  pastWaitMs?: number
}

export type RedisRunNotifier = RunNotifier & { close(): Promise<void> }

/**
 * A run notifier shared by every process: a run's new events, stored in PostgreSQL by the
 * process executing it, wake SSE readers in every other process through Redis pub/sub. Readers
 * read the events from the database, so `Last-Event-ID` stays exact whoever executes the run.
 *
 * Nothing of a run goes to Redis while no other process reads it (most runs): a process whose
 * first reader of a run comes subscribes to the run's own channel (`<channel>:<run id>`) and
 * then says so on the readers' channel (`<channel>/readers`), again every `announceEveryMs`
 * while it reads, and at once when a process asks (it started, or Redis came back to it: what
 * was said meanwhile was lost). Every process notes it for `readForMs`; from then on the
 * process executing the run (or the one that will: a queued run) publishes the run's notices
 * and streamed text on its channel, and the executing process answers at once with a notice
 * and the text its steps streamed so far (kept in its memory, at most `maxKeptCharacters` a
 * run). So a run that only its own process reads costs Redis nothing, and a process with no
 * reader of a run is sent none of it: only a word when a reader of it comes. Each piece says
 * where it starts in its step's text, so a reader from the start who gets a piece both in the
 * text so far and live is given it once, in order: a live piece that would leave a gap waits
 * for the text so far (at most `pastWaitMs`).
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
  const announceEveryMs = options.announceEveryMs ?? 30_000
  const readForMs = options.readForMs ?? 3 * announceEveryMs
  const pastWaitMs = options.pastWaitMs ?? 2_000
  // Notices, and the text of the runs executed here for their readers, here and elsewhere.
  const local = createRunNotifier({ keptForMs, maxKeptCharacters: maxPerRun })
  const prefix = `${options.origin}\n`
  const runChannel = `${options.channel}:`
  const readersChannel = `${options.channel}/readers`
  // Readers here per run (of notices or text): the run's channel is subscribed while any is;
  // `subscribed` settles once Redis has confirmed it.
  const readers = new Map<string, { count: number; subscribed: Promise<unknown> }>()
  // The listeners of streamed text here, per run, fed by this process's runs and the channels.
  const pieceListeners = new Map<string, Set<PieceListener>>()
  // Per run executed here: the characters streamed of each step.
  const published = new Map<string, Map<string, number>>()
  // Runs read in another process, until when: their notices and text go to Redis.
  const readElsewhere = new Map<string, number>()
  const readElsewhereOldest = new OldestFirst(readElsewhere)
  // Runs notified here lately (executed here, most often): a reader who comes is woken.
  const notifiedHere = new Set<string>()
  const notifiedHereOldest = new OldestFirst(notifiedHere)

  const isReadElsewhere = (runId: string): boolean => {
    const until = readElsewhere.get(runId)
    if (until === undefined) return false
    if (until >= Date.now()) return true
    readElsewhere.delete(runId)
    return false
  }
  const publish = (runId: string, body: string) => {
    publisher.publish(`${runChannel}${runId}`, `${prefix}${body}`).catch(() => {
      // Redis is down: readers elsewhere catch up on stored events at their next sweep, and
      // miss live text, never a stored event.
    })
  }
  const announce = (runId: string) => {
    publisher.publish(readersChannel, `${prefix}${runId}`).catch(() => {
      // Redis is down: said again at the next announcement.
    })
  }
  // A reader of `runId` came in another process: its notices and text go to Redis from now
  // on, and if it executes here the reader is woken and given the text so far.
  const cameToRead = (runId: string) => {
    readElsewhere.delete(runId)
    readElsewhere.set(runId, Date.now() + readForMs)
    readElsewhereOldest.trimTo(MAX_REMEMBERED_RUNS)
    if (notifiedHere.has(runId)) publish(runId, '')
    if (!published.has(runId)) return
    const past = local.textSoFar(runId).map((delta): Piece => ({ delta, offset: 0 }))
    publish(runId, `${PAST_MARK}${JSON.stringify(past)}`)
  }

  const read = (
    runId: string,
  ): { subscribed: Promise<unknown>; first: boolean; unread: () => void } => {
    let reading = readers.get(runId)
    const first = reading === undefined
    if (reading) reading.count += 1
    else {
      // A notice missed while the subscription is on its way is made up for by the sweep (and
      // the reader reads the stored events once it listens); ioredis subscribes again after a
      // reconnect. Subscribed first, then announced: whatever is published once the executing
      // process knows of the reader reaches it.
      const subscribed = subscriber.subscribe(`${runChannel}${runId}`).catch(() => {})
      void subscribed.then(() => announce(runId))
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
    return { subscribed: reading.subscribed, first, unread }
  }
  const handLive = (runId: string, piece: Piece) => {
    for (const listener of pieceListeners.get(runId) ?? []) listener.live(piece)
  }

  const announceAll = () => {
    for (const runId of readers.keys()) announce(runId)
  }
  const rollCall = () => {
    publisher.publish(readersChannel, `${prefix}${ROLL_CALL}`).catch(() => {
      // Redis is down: asked again when it is back.
    })
  }
  await subscriber.subscribe(readersChannel)
  subscriber.on('message', (channel: string, message: string) => {
    if (message.startsWith(prefix)) return
    const body = message.slice(message.indexOf('\n') + 1)
    if (channel === readersChannel) return body === ROLL_CALL ? announceAll() : cameToRead(body)
    if (!channel.startsWith(runChannel)) return
    const runId = channel.slice(runChannel.length)
    if (body.startsWith(DELTA_MARK)) {
      const piece = parsePiece(body.slice(DELTA_MARK.length))
      if (piece) handLive(runId, piece)
    } else if (body.startsWith(PAST_MARK)) {
      const past = parsePast(body.slice(PAST_MARK.length))
      for (const listener of pieceListeners.get(runId) ?? []) listener.past(past)
    } else local.notify(runId)
  })
  const sweep = setInterval(() => {
    for (const runId of readers.keys()) local.notify(runId)
  }, options.sweepMs ?? 1_000)
  sweep.unref()
  const reannounce = setInterval(announceAll, announceEveryMs)
  reannounce.unref()
  // Readers elsewhere, of runs this process may execute, say so now; and again after Redis
  // was away (ioredis has subscribed the channels again by then).
  rollCall()
  subscriber.on('ready', rollCall)

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
      if (!notifiedHere.has(runId)) {
        notifiedHere.add(runId)
        notifiedHereOldest.trimTo(MAX_REMEMBERED_RUNS)
      }
      if (isReadElsewhere(runId)) publish(runId, '')
    },
    listenDeltas(runId, listener, listenOptions: DeltaListenOptions = {}) {
      const { subscribed, first, unread } = read(runId)
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
      // From the start, of a run executed elsewhere: live pieces that would leave a gap (the
      // run streamed before this reader came) wait for the executing process's text so far.
      let held: Piece[] | undefined
      const release = () => {
        const queued = held
        held = undefined
        for (const piece of queued ?? []) take(piece)
      }
      const own: PieceListener = {
        live(piece) {
          if (held && piece.offset > (seen.get(stepKeyOf(piece.delta)) ?? 0)) held.push(piece)
          else take(piece)
        },
        past(pieces) {
          if (!listenOptions.fromStart) return
          for (const delta of merged(pieces, seen)) hand(delta)
          release()
        },
      }
      let listeners = pieceListeners.get(runId)
      if (!listeners) {
        listeners = new Set()
        pieceListeners.set(runId, listeners)
      }
      listeners.add(own)
      let waiting: ReturnType<typeof setTimeout> | undefined
      if (listenOptions.fromStart) {
        if (published.has(runId)) {
          // Executed here: its text so far is here, handed over in this turn.
          for (const delta of local.textSoFar(runId)) {
            seen.set(stepKeyOf(delta), delta.text.length)
            hand(delta)
          }
        } else {
          held = []
          // The executing process answers an announcement with the text so far; a reader who
          // joins a run this process already reads announces itself again to get it.
          if (!first) void subscribed.then(() => announce(runId))
          // No answer (nothing streamed yet, or Redis away): the live text as it comes.
          waiting = setTimeout(release, pastWaitMs)
          waiting.unref?.()
        }
      }
      return () => {
        open = false
        clearTimeout(waiting)
        listeners.delete(own)
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
      notifiedHere.delete(runId)
    },
    delta(delta) {
      local.delta(delta)
      let steps = published.get(delta.runId)
      if (!steps) {
        steps = new Map()
        published.set(delta.runId, steps)
      }
      const step = stepKeyOf(delta)
      const offset = steps.get(step) ?? 0
      steps.set(step, offset + delta.text.length)
      const piece: Piece = { delta, offset }
      handLive(delta.runId, piece)
      // Coalesced upstream (a few per second per streaming step), so each may travel whole.
      if (isReadElsewhere(delta.runId)) {
        publish(delta.runId, `${DELTA_MARK}${JSON.stringify(piece)}`)
      }
    },
    async close() {
      subscriber.off('ready', rollCall)
      clearInterval(sweep)
      clearInterval(reannounce)
      const channels = [...readers.keys()].map((runId) => `${runChannel}${runId}`)
      await subscriber.unsubscribe(readersChannel, ...channels).catch(() => {})
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

/**
 * Pieces of a run as one delta per step (its first piece's `sequence`), in order, the unseen
 * part of each.
 */
function merged(pieces: Piece[], seen: Map<string, number>): RunDelta[] {
  const steps = new Map<string, RunDelta>()
  for (const piece of pieces) {
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
  return asPiece(parsed(raw))
}

/** The text so far as the executing process sends it (the pieces that are pieces), or none. */
function parsePast(raw: string): Piece[] {
  const pieces = parsed(raw)
  return Array.isArray(pieces) ? pieces.flatMap((each) => asPiece(each) ?? []) : []
}

function asPiece(value: unknown): Piece | undefined {
  const piece = value as Partial<Piece> | null | undefined
  if (
    typeof piece?.offset === 'number' &&
    typeof piece.delta?.text === 'string' &&
    typeof piece.delta.runId === 'string'
  ) {
    return piece as Piece
  }
  return undefined
}

function parsed(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    // Not one of ours: ignored.
    return undefined
  }
}
