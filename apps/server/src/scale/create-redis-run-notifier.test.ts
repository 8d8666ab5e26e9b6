import { waitFor } from '@baton/testing/processes'
import { hasRedis, type RedisServer, startRedisServer } from '@baton/testing/redis'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunDelta } from '../services/run-notifier'
import { createRedisRunNotifier, type RedisRunNotifier } from './create-redis-run-notifier'

const canRun = hasRedis || process.env.CI === 'true'
if (!canRun) console.warn('[run notifier tests] redis-server not found: skipping.')

describe.runIf(canRun)('createRedisRunNotifier', () => {
  let server: RedisServer
  const connections: Redis[] = []
  const notifiers: RedisRunNotifier[] = []
  const subscribers = new Map<string, Redis>()
  const notifier = async (origin: string, more: { announceEveryMs?: number } = {}) => {
    const publisher = new Redis(server.url)
    // Reconnects after a second: long enough for a word on the readers' channel to be lost.
    const subscriber = new Redis(server.url, {
      retryStrategy: () => 1_000,
      connectionName: `subscriber-${origin}`,
    })
    subscribers.set(origin, subscriber)
    connections.push(publisher, subscriber)
    const made = await createRedisRunNotifier({
      publisher,
      subscriber,
      channel: 'test:run-events',
      origin,
      ...more,
    })
    notifiers.push(made)
    return made
  }
  beforeAll(async () => {
    server = await startRedisServer()
  })
  afterAll(async () => {
    for (const each of notifiers) await each.close()
    for (const connection of connections) connection.disconnect()
    await server?.stop()
  })

  const delta = (text: string, runId = 'run-1', path = 'steps[0]'): RunDelta => ({
    type: 'step-delta',
    runId,
    sequence: 1,
    at: new Date().toISOString(),
    path,
    op: 'delegate',
    wallet: '0x1111111111111111111111111111111111111111',
    text,
  })
  // What a process is sent of runs: the messages on their channels (a reader's word on the
  // readers' channel, once as it comes, goes to every process).
  const received = (origin: string) => {
    const messages: string[] = []
    subscribers.get(origin)!.on('message', (channel: string) => {
      if (channel !== 'test:run-events/readers') messages.push(channel)
    })
    return messages
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 150))
  // The executing process streams the run until a piece reaches the reader (none goes to Redis
  // until it knows of the reader), within 5 s: far less than the 30 s between announcements.
  const reachesItsReader = async (
    executing: RedisRunNotifier,
    runId: string,
    there: string[],
    who: string,
  ) => {
    let sent = 0
    await waitFor(
      () => {
        executing.delta(delta(String(sent++), runId))
        return there.length > 0 ? true : undefined
      },
      { timeoutMs: 5_000, what: `${who} to send the run it executes to its reader` },
    )
  }

  it("hands a run's streamed text to a reader in another process from the start, whole, in order and once, and to no process that does not read it", async () => {
    const executing = await notifier('host-a:1')
    const reading = await notifier('host-b:2')
    await notifier('host-f:6')
    const atIdle = received('host-f:6')
    const here: string[] = []
    executing.listenDeltas('run-1', (each) => here.push(each.text))
    // Streamed before any reader elsewhere: kept for a reader from the start.
    executing.delta(delta('Hello'))
    const there: RunDelta[] = []
    const off = reading.listenDeltas('run-1', (each) => there.push(each), { fromStart: true })
    // Streamed while that reader's subscription and its read of the text so far are on their way.
    executing.delta(delta(', "world"\n'))
    const joined = () => there.map((each) => each.text).join('')
    await waitFor(() => (joined() === 'Hello, "world"\n' ? true : undefined))
    // Live from then on.
    executing.delta(delta('!'))
    await waitFor(() => (joined().endsWith('!') ? true : undefined))
    await settle()
    // The process that reads nothing of the run was sent nothing of it.
    expect(atIdle).toEqual([])
    expect(joined()).toBe('Hello, "world"\n!')
    expect(here).toEqual(['Hello', ', "world"\n', '!'])
    expect(there.every((each) => each.runId === 'run-1' && each.path === 'steps[0]')).toBe(true)
    // A reader from the start on the executing process is given its text in the same turn.
    const sameProcess: string[] = []
    executing.listenDeltas('run-1', (each) => sameProcess.push(each.text), { fromStart: true })
    expect(sameProcess).toEqual(['Hello, "world"\n!'])
    off()

    // Once the run has ended, a late reader elsewhere reads its stored events: no text is kept.
    executing.forget('run-1')
    await settle()
    const late: RunDelta[] = []
    reading.listenDeltas('run-1', (each) => late.push(each), { fromStart: true })
    await settle()
    expect(late).toEqual([])
  })

  it('gives each of many readers from the start every piece of each step once, however its reads and the live text cross', async () => {
    const executing = await notifier('host-g:7')
    const reading = await notifier('host-h:8')
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee']
    for (let round = 0; round < 20; round++) {
      const runId = `crossing-${round}`
      // Some text before the reader, some while it joins, some after, on two steps.
      const before = round % texts.length
      for (const text of texts.slice(0, before)) executing.delta(delta(text, runId))
      executing.delta(delta('x', runId, 'steps[1]'))
      const there: RunDelta[] = []
      reading.listenDeltas(runId, (each) => there.push(each), { fromStart: true })
      for (const text of texts.slice(before)) executing.delta(delta(text, runId))
      executing.delta(delta('y', runId, 'steps[1]'))
      const of = (path: string) =>
        there
          .filter((each) => each.path === path)
          .map((each) => each.text)
          .join('')
      await waitFor(() =>
        of('steps[0]').length >= 15 && of('steps[1]').length >= 2 ? true : undefined,
      )
      await settle()
      expect(of('steps[0]')).toBe(texts.join(''))
      expect(of('steps[1]')).toBe('xy')
      executing.forget(runId)
    }
  })

  it('gives a reader from the start who comes while the run streams live to another the text before the live text, with no gap', async () => {
    const executing = await notifier('host-m:13')
    const first = await notifier('host-n:14')
    const second = await notifier('host-o:15')
    for (let round = 0; round < 10; round++) {
      const runId = `streaming-${round}`
      const early: string[] = []
      const offEarly = first.listenDeltas(runId, (each) => early.push(each.text), {
        fromStart: true,
      })
      executing.delta(delta('a', runId))
      await waitFor(() => (early.join('') === 'a' ? true : undefined))
      // Published live now (read elsewhere); some streamed before the second reader comes.
      for (const text of ['b', 'c'].slice(0, round % 3)) executing.delta(delta(text, runId))
      await settle()
      const late: string[] = []
      const offLate = second.listenDeltas(runId, (each) => late.push(each.text), {
        fromStart: true,
      })
      // Some pieces cross the reader's subscription and the executing process's answer.
      for (const text of ['d', 'e', 'f']) {
        await new Promise((resolve) => setTimeout(resolve, round % 4))
        executing.delta(delta(text, runId))
      }
      const expected = `a${['b', 'c'].slice(0, round % 3).join('')}def`
      await waitFor(() => (late.join('').length >= expected.length ? true : undefined))
      await settle()
      expect(late.join('')).toBe(expected)
      expect(early.join('')).toBe(expected)
      offEarly()
      offLate()
      executing.forget(runId)
    }
  })

  it('tells a process that starts while another reads a run of that reader at once, not at the next announcement', async () => {
    const reading = await notifier('host-p:16')
    const there: string[] = []
    const off = reading.listenDeltas('before-start', (each) => there.push(each.text))
    await settle()
    // Started since (a worker added, or restarted), with the default 30 s between announcements.
    const executing = await notifier('host-q:17')
    await reachesItsReader(executing, 'before-start', there, 'the new process')
    off()
    executing.forget('before-start')
  })

  it('tells a process whose Redis connection was lost, once it is back, of the readers that came meanwhile', async () => {
    const executing = await notifier('host-r:18')
    const reading = await notifier('host-s:19')
    // Redis drops the executing process's subscriber (a network fault, a failover).
    const admin = new Redis(server.url)
    connections.push(admin)
    const subscriber = subscribers.get('host-r:18')!
    const clients = (await admin.client('LIST')) as string
    const id = /id=(\d+) .*name=subscriber-host-r:18 /.exec(clients)?.[1]
    expect(id).toBeDefined()
    const cut = new Promise((resolve) => subscriber.once('close', resolve))
    await admin.client('KILL', 'ID', String(id))
    await cut
    // A reader comes while it is away: its word is not heard there.
    const there: string[] = []
    const off = reading.listenDeltas('while-away', (each) => there.push(each.text))
    await waitFor(() => (subscriber.status === 'ready' ? true : undefined), { timeoutMs: 10_000 })
    await reachesItsReader(executing, 'while-away', there, 'the process back on Redis')
    off()
    executing.forget('while-away')
  })

  it('sends nothing of a run to Redis while no other process reads it', async () => {
    const executing = await notifier('host-i:9')
    await notifier('host-j:10')
    // Everything published on any channel of runs, whoever subscribes.
    const spy = new Redis(server.url)
    connections.push(spy)
    const seen: string[] = []
    spy.on('pmessage', (_pattern: string, channel: string) => seen.push(channel))
    await spy.psubscribe('test:run-events:*')
    const here: string[] = []
    const off = executing.listenDeltas('alone', (each) => here.push(each.text), { fromStart: true })
    let woken = 0
    const offNotices = executing.listen('alone', () => {
      woken += 1
    })
    executing.notify('alone')
    executing.delta(delta('all', 'alone'))
    executing.delta(delta(' here', 'alone'))
    executing.notify('alone')
    executing.forget('alone')
    await settle()
    expect(seen).toEqual([])
    expect(here).toEqual(['all', ' here'])
    expect(woken).toBe(2)
    const keys = new Redis(server.url)
    connections.push(keys)
    expect(await keys.keys('test:run-events*')).toEqual([])
    off()
    offNotices()
  })

  it('gives a reader who came before the run streamed its text from the first piece, and keeps giving it past the time a word lasts', async () => {
    const executing = await notifier('host-k:11', { announceEveryMs: 100 })
    const reading = await notifier('host-l:12', { announceEveryMs: 100 })
    const there: string[] = []
    // Read before the run streams anything (queued, or its step not yet at its model call).
    const off = reading.listenDeltas('queued', (each) => there.push(each.text), {
      fromStart: true,
    })
    let woken = 0
    const offNotices = reading.listen('queued', () => {
      woken += 1
    })
    await settle()
    executing.notify('queued')
    executing.delta(delta('first', 'queued'))
    await waitFor(() => (there.join('') === 'first' && woken > 0 ? true : undefined))
    // Longer than a word lasts (3 × 100 ms): the reader has said so again since.
    await new Promise((resolve) => setTimeout(resolve, 700))
    executing.delta(delta(', then more', 'queued'))
    await waitFor(() => (there.join('') === 'first, then more' ? true : undefined))
    expect(there).toEqual(['first', ', then more'])
    off()
    offNotices()
    executing.forget('queued')
  })

  it("wakes a reader of a run in another process, and sends a run's notices to no process that does not read it", async () => {
    const executing = await notifier('host-c:3')
    const reading = await notifier('host-d:4')
    // A third process, which reads nothing of the run.
    await notifier('host-e:5')
    const atReader = received('host-d:4')
    const atIdle = received('host-e:5')
    let woken = 0
    const off = reading.listen('run-2', () => {
      woken += 1
    })
    // The subscription is on its way: a notice is sent until the reader has one.
    await waitFor(() => {
      executing.notify('run-2')
      return woken > 0 ? true : undefined
    })
    expect(atReader.every((channel) => channel === 'test:run-events:run-2')).toBe(true)
    expect(atIdle).toEqual([])

    // Once the reader has gone, its process is sent nothing more of the run either.
    off()
    await new Promise((resolve) => setTimeout(resolve, 100))
    const before = atReader.length
    executing.notify('run-2')
    executing.notify('run-2')
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(atReader.length).toBe(before)
    expect(woken).toBeGreaterThan(0)
  })
})
