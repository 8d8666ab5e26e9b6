import { describe, expect, it } from 'vitest'
import { conclaveToolsFor } from './conclave-tools-for'
import { createMemoryConclave } from './create-memory-conclave'

const options = { toolCallId: 'call', messages: [] }

describe('conclaveToolsFor', () => {
  it('makes the tools once per run conclave and wallet, each wallet writing as itself', async () => {
    const store = createMemoryConclave()
    const conclave = { store, space: 'run-1' }
    const ada = conclaveToolsFor(conclave, 'ada')
    expect(conclaveToolsFor(conclave, 'ada')).toBe(ada)
    const bob = conclaveToolsFor(conclave, 'bob')
    expect(bob).not.toBe(ada)
    // Another run's conclave (its own object) gets tools of its own, on its own keyspace.
    const other = conclaveToolsFor({ store, space: 'run-2' }, 'ada')
    expect(other).not.toBe(ada)

    await ada.conclave_write!.execute!({ key: 'k', value: 1, ifVersion: 0 }, options)
    await bob.conclave_write!.execute!({ key: 'j', value: 2, ifVersion: 0 }, options)
    expect(await store.read('run-1', 'k')).toMatchObject({ value: 1, writtenBy: 'ada' })
    expect(await store.read('run-1', 'j')).toMatchObject({ value: 2, writtenBy: 'bob' })
    expect(await store.read('run-2', 'k')).toBeNull()
  })
})
