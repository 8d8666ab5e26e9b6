import { describe, expect, it } from 'vitest'
import { createEventBatcher } from './event-batcher'
import { createSerialWriter } from './serial-writer'

describe('createEventBatcher', () => {
  it('stores events in order, in batches, keeping their order with other writes', async () => {
    const writer = createSerialWriter()
    const written: string[] = []
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    writer.write(() => gate)
    const events = createEventBatcher({
      writer,
      append: async (batch) => {
        written.push(batch.map((event) => event.n).join(','))
      },
    })
    events.push({ n: 1 })
    events.push({ n: 2 })
    writer.write(async () => {
      written.push('ledger')
    })
    events.push({ n: 3 })
    release()
    await writer.flush()
    expect(written).toEqual(['1,2', 'ledger', '3'])
  })

  it('holds the caller at room() past maxPending until the database has caught up', async () => {
    const writer = createSerialWriter()
    let release!: () => void
    const slow = new Promise<void>((resolve) => {
      release = resolve
    })
    const events = createEventBatcher({ writer, append: () => slow, maxPending: 3 })
    events.push({ n: 1 })
    events.push({ n: 2 })
    expect(events.room()).toBeUndefined()
    events.push({ n: 3 })
    const waiting = events.room()
    expect(waiting).toBeInstanceOf(Promise)
    let roomy = false
    void waiting!.then(() => {
      roomy = true
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(roomy).toBe(false)
    release()
    await writer.flush()
    await waiting
    expect(roomy).toBe(true)
    expect(events.room()).toBeUndefined()
  })
})
