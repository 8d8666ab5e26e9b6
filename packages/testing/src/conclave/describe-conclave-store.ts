import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { appendAsWriter, type ConclaveStoreLike } from './conclave-store'

/**
 * The behaviour every conclave store must have, as tests: run it on each flavour (memory,
 * database, Redis) so they cannot drift apart. Open the stores with `maxKeys: 3` and
 * `maxValueBytes: 64`, for the bounds tests.
 *
 * @example
 * describeConclaveStore('memory', async () => createMemoryConclave({ maxKeys: 3 }))
 */
export function describeConclaveStore(name: string, open: () => Promise<ConclaveStoreLike>): void {
  describe(`conclave store (${name})`, () => {
    let space = 0
    const fresh = () => `space-${name}-${process.pid}-${space++}-${Math.random()}`

    it('versions every write of a key, attributed to its writer', async () => {
      const store = await open()
      const at = fresh()
      const first = await store.write(at, 'draft', { text: 'a' }, { writtenBy: '0xaa' })
      const second = await store.write(at, 'draft', { text: 'b' }, { writtenBy: '0xbb' })
      expect([first.version, second.version]).toEqual([1, 2])
      expect(await store.read(at, 'draft')).toMatchObject({
        value: { text: 'b' },
        writtenBy: '0xbb',
        version: 2,
      })
      expect(typeof second.updatedAt).toBe('string')
    })

    it('refuses a stale ifVersion with CONCLAVE_CONFLICT and keeps the newer value', async () => {
      const store = await open()
      const at = fresh()
      await store.write(at, 'k', 1, { writtenBy: 'a', ifVersion: 0 })
      await expect(store.write(at, 'k', 2, { writtenBy: 'b', ifVersion: 0 })).rejects.toMatchObject(
        { code: 'CONCLAVE_CONFLICT', expected: 0, actual: 1 },
      )
      await store.write(at, 'k', 3, { writtenBy: 'a', ifVersion: 1 })
      await expect(store.delete(at, 'k', { ifVersion: 1 })).rejects.toMatchObject({
        code: 'CONCLAVE_CONFLICT',
      })
      expect((await store.read(at, 'k'))?.value).toBe(3)
    })

    it('never reuses a version after a delete', async () => {
      const store = await open()
      const at = fresh()
      await store.write(at, 'k', 'one', { writtenBy: 'a' })
      expect(await store.delete(at, 'k')).toBe(true)
      expect(await store.delete(at, 'k')).toBe(false)
      expect(await store.read(at, 'k')).toBeNull()
      expect((await store.write(at, 'k', 'two', { writtenBy: 'a', ifVersion: 0 })).version).toBe(2)
    })

    it('keeps keyspaces apart, lists keys sorted and drops a keyspace when it expires', async () => {
      const store = await open()
      const [one, two] = [fresh(), fresh()]
      await store.write(one, 'b', 1, { writtenBy: 'a' })
      await store.write(one, 'a', 1, { writtenBy: 'a' })
      await store.write(two, 'c', 1, { writtenBy: 'a' })
      expect(await store.list(one)).toEqual(['a', 'b'])
      await store.expire(one, 0)
      expect(await store.list(one)).toEqual([])
      expect(await store.list(two)).toEqual(['c'])
    })

    it('refuses a value or a key count past its bounds with CONCLAVE_LIMIT', async () => {
      const store = await open()
      const at = fresh()
      await expect(
        store.write(at, 'big', 'x'.repeat(100), { writtenBy: 'a' }),
      ).rejects.toMatchObject({ code: 'CONCLAVE_LIMIT' })
      for (const key of ['a', 'b', 'c']) await store.write(at, key, 1, { writtenBy: 'a' })
      await expect(store.write(at, 'd', 1, { writtenBy: 'a' })).rejects.toMatchObject({
        code: 'CONCLAVE_LIMIT',
      })
      // An existing key may still be rewritten.
      expect((await store.write(at, 'a', 2, { writtenBy: 'a' })).version).toBe(2)
    })

    it('never loses an update among concurrent compare-and-set writers', async () => {
      const store = await open()
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 2, max: 6 }),
          fc.integer({ min: 1, max: 4 }),
          async (writers, increments) => {
            const at = fresh()
            await Promise.all(
              Array.from({ length: writers }, (_, id) =>
                appendAsWriter({ store, space: at, id, increments }),
              ),
            )
            const final = await store.read(at, 'counter')
            expect((final?.value as number[] | undefined)?.length).toBe(writers * increments)
            expect(final?.version).toBe(writers * increments)
          },
        ),
        { numRuns: 15 },
      )
    })
  })
}
