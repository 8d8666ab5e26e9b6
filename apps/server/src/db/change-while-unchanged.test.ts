import { describe, expect, it } from 'vitest'
import {
  ChangeContendedError,
  changeWhileUnchanged,
  maxChangeAttempts,
} from './change-while-unchanged'

/** One stored record with a version, written only while the version read is still stored. */
function storedRecord(initial: Record<string, number>) {
  const store = { version: 1, record: initial as Record<string, number> | undefined }
  return {
    store,
    read: async () => (store.record ? { version: store.version, record: store.record } : undefined),
    write: async (
      changed: Record<string, number>,
      current: { version: number; record: Record<string, number> },
    ) => {
      await Promise.resolve()
      if (store.version !== current.version || !store.record) return false
      store.version += 1
      store.record = changed
      return true
    },
  }
}

describe('changeWhileUnchanged', () => {
  it('keeps every change of many made at once, each applied to the record as it was written', async () => {
    const { store, read, write } = storedRecord({ a: 0, b: 0, c: 0, d: 0 })
    const fields = ['a', 'b', 'c', 'd'] as const
    const results = await Promise.all(
      fields.map((field) =>
        changeWhileUnchanged({
          what: 'swarm',
          id: 's1',
          read,
          apply: ({ record }) => ({ ...record, [field]: 1 }),
          write,
        }),
      ),
    )
    expect(store.record).toEqual({ a: 1, b: 1, c: 1, d: 1 })
    // The last one written saw every change before it.
    expect(results).toContainEqual({ a: 1, b: 1, c: 1, d: 1 })
  })

  it('answers undefined when the record is gone, at the first read or after a refused write', async () => {
    const { store, read, write } = storedRecord({ a: 0 })
    let applied = 0
    const gone = changeWhileUnchanged({
      what: 'agent',
      id: '0xabc',
      first: { version: 1, record: { a: 0 } },
      read,
      apply: ({ record }) => {
        applied += 1
        // Removed while this change was being made: its write is refused, its read finds none.
        store.record = undefined
        return { ...record, a: 1 }
      },
      write,
    })
    await expect(gone).resolves.toBeUndefined()
    expect(applied).toBe(1)
    await expect(
      changeWhileUnchanged({ what: 'agent', id: '0xabc', read, apply: () => ({}), write }),
    ).resolves.toBeUndefined()
  })

  it(`gives up with a 409 CONFLICT naming the record after ${maxChangeAttempts} refused writes`, async () => {
    const { store, read } = storedRecord({ a: 0 })
    let attempts = 0
    const change = changeWhileUnchanged({
      what: 'swarm',
      id: 'busy',
      read,
      apply: ({ record }, attempt) => {
        attempts = attempt
        return record
      },
      // Someone else writes first, every time.
      write: async () => {
        store.version += 1
        return false
      },
    })
    const error = await change.catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ChangeContendedError)
    expect(error).toMatchObject({
      code: 'CONFLICT',
      details: { what: 'swarm', id: 'busy' },
      message: expect.stringContaining(
        `Swarm "busy" was changed by other requests each of the ${maxChangeAttempts} times`,
      ),
    })
    expect(attempts).toBe(maxChangeAttempts)
  })
})
