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
  const notifier = async (origin: string) => {
    const publisher = new Redis(server.url)
    const subscriber = new Redis(server.url)
    subscribers.set(origin, subscriber)
    connections.push(publisher, subscriber)
    const made = await createRedisRunNotifier({
      publisher,
      subscriber,
      channel: 'test:run-events',
      origin,
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
  const received = (origin: string) => {
    const messages: string[] = []
    subscribers.get(origin)!.on('message', (channel: string) => messages.push(channel))
    return messages
  }
  const settle = () => new Promise((resolve) => setTimeout(resolve, 150))

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
