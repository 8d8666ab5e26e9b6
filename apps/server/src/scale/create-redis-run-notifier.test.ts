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

  const delta = (text: string): RunDelta => ({
    type: 'step-delta',
    runId: 'run-1',
    sequence: 1,
    at: new Date().toISOString(),
    path: 'steps[0]',
    op: 'delegate',
    wallet: '0x1111111111111111111111111111111111111111',
    text,
  })

  it("hands a run's streamed text to readers in another process, whole and in order, and keeps it for a late reader", async () => {
    const executing = await notifier('host-a:1')
    const reading = await notifier('host-b:2')
    const here: string[] = []
    const there: string[] = []
    executing.listenDeltas('run-1', (each) => here.push(each.text))
    reading.listenDeltas('run-1', (each) => there.push(each.text))
    executing.delta(delta('Hello'))
    executing.delta(delta(', "world"\n'))
    await waitFor(() => (there.length === 2 ? true : undefined))
    expect(here).toEqual(['Hello', ', "world"\n'])
    expect(there).toEqual(['Hello', ', "world"\n'])
    // A reader joining from the start on either process is given the text so far.
    expect(reading.textSoFar('run-1').map((each) => each.text)).toEqual(['Hello, "world"\n'])
    reading.forget('run-1')
    expect(reading.textSoFar('run-1')).toEqual([])
  })

  it("wakes a reader of a run in another process, and sends a run's notices to no process that does not read it", async () => {
    const executing = await notifier('host-c:3')
    const reading = await notifier('host-d:4')
    // A third process, which reads nothing of the run.
    await notifier('host-e:5')
    const received = (origin: string) => {
      const messages: string[] = []
      subscribers.get(origin)!.on('message', (channel: string) => messages.push(channel))
      return messages
    }
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
