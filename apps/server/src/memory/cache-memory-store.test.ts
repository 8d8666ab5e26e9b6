import type { MemoryEntry } from '@baton/core'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countQueries } from '../__fixtures__/count-queries'
import { openTestDatabase } from '../__fixtures__/test-database'
import type { Database } from '../db/database'
import { createDatabaseMemoryStore } from '../db/memory-repository'
import type { OpenedDatabase } from '../db/open-database'
import { cacheMemoryStore } from './cache-memory-store'

const note = (content: string): MemoryEntry => ({
  role: 'note',
  content,
  createdAt: '2026-01-01T00:00:00.000Z',
})
const contents = (entries: MemoryEntry[]) => entries.map((entry) => entry.content)

describe('cacheMemoryStore', () => {
  let opened: OpenedDatabase
  let counter: ReturnType<typeof countQueries>
  let counted: Kysely<Database>
  beforeAll(async () => {
    opened = await openTestDatabase('pglite')
    counter = countQueries(opened.db)
    counted = counter.db
  })
  afterAll(async () => {
    await opened.db.destroy()
  })

  it('reads an unchanged scope once, and keeps its own appends in its copy without reading again', async () => {
    const announced: string[] = []
    const { memory } = cacheMemoryStore(createDatabaseMemoryStore(counted), {
      onWrite: (scope) => {
        announced.push(scope)
      },
    })
    await memory.read('kept', { limit: 2 })
    const afterFirst = counter.queries()
    await memory.read('kept', { limit: 2 })
    expect(counter.queries()).toBe(afterFirst)

    await memory.append('kept', [note('one'), note('two')])
    await memory.append('kept', [note('three')])
    const afterAppends = counter.queries()
    expect(contents(await memory.read('kept', { limit: 2 }))).toEqual(['two', 'three'])
    expect(counter.queries()).toBe(afterAppends)
    expect(announced).toEqual(['kept', 'kept'])
    // What the copy answers is what the database holds.
    expect(contents(await createDatabaseMemoryStore(opened.db).read('kept', { limit: 2 }))).toEqual(
      ['two', 'three'],
    )
    // A longer read than the copy holds asks the database.
    expect(contents(await memory.read('kept', { limit: 10 }))).toEqual(['one', 'two', 'three'])
  })

  it('sees a write made behind its back once invalidated, and a clear at once', async () => {
    const cached = cacheMemoryStore(createDatabaseMemoryStore(counted))
    const behind = createDatabaseMemoryStore(opened.db)
    expect(await cached.memory.read('elsewhere')).toEqual([])
    await behind.append('elsewhere', [note('from another process')])
    expect(await cached.memory.read('elsewhere')).toEqual([])
    cached.invalidate('elsewhere')
    expect(contents(await cached.memory.read('elsewhere'))).toEqual(['from another process'])
    await cached.memory.clear('elsewhere')
    expect(await cached.memory.read('elsewhere')).toEqual([])
  })

  it('does not keep a read that overlapped a write, nor a copy two appends changed at once', async () => {
    const { memory } = cacheMemoryStore(createDatabaseMemoryStore(counted))
    await memory.read('busy')
    await Promise.all([memory.append('busy', [note('a')]), memory.append('busy', [note('b')])])
    const [read, written] = await Promise.all([
      memory.read('busy'),
      memory.append('busy', [note('c')]),
    ])
    void written
    expect(read.length).toBeGreaterThanOrEqual(2)
    const truth = contents(await createDatabaseMemoryStore(opened.db).read('busy'))
    expect(contents(await memory.read('busy'))).toEqual(truth)
  })

  it('forgets a copy after its time to live', async () => {
    let clock = 0
    const { memory } = cacheMemoryStore(createDatabaseMemoryStore(counted), {
      ttlMs: 1_000,
      now: () => clock,
    })
    await memory.read('aging')
    await createDatabaseMemoryStore(opened.db).append('aging', [note('later')])
    clock = 999
    expect(await memory.read('aging')).toEqual([])
    clock = 1_000
    expect(contents(await memory.read('aging'))).toEqual(['later'])
  })
})
