import type { MemoryEntry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { countedTestDatabase } from '../__fixtures__/count-queries'
import { createGroupCommit } from '../db/group-commit'
import { createDatabaseMemoryStore } from '../db/memory-repository'
import { cacheMemoryStore } from './cache-memory-store'
import { memoryTopics } from './memory-announcements'

const note = (content: string): MemoryEntry => ({
  role: 'note',
  content,
  createdAt: '2026-01-01T00:00:00.000Z',
})
const contents = (entries: MemoryEntry[]) => entries.map((entry) => entry.content)

describe('cacheMemoryStore', () => {
  const database = countedTestDatabase()

  it('reads an unchanged scope once, and keeps its own appends in its copy without reading again', async () => {
    const announced: string[] = []
    const { memory } = cacheMemoryStore(createDatabaseMemoryStore(database.counter.db), {
      onWrite: (scope) => {
        announced.push(scope)
      },
    })
    await memory.read('kept', { limit: 2 })
    const afterFirst = database.counter.queries()
    await memory.read('kept', { limit: 2 })
    expect(database.counter.queries()).toBe(afterFirst)

    await memory.append('kept', [note('one'), note('two')])
    await memory.append('kept', [note('three')])
    const afterAppends = database.counter.queries()
    expect(contents(await memory.read('kept', { limit: 2 }))).toEqual(['two', 'three'])
    expect(database.counter.queries()).toBe(afterAppends)
    expect(announced).toEqual(['kept', 'kept'])
    // What the copy answers is what the database holds.
    expect(
      contents(await createDatabaseMemoryStore(database.opened.db).read('kept', { limit: 2 })),
    ).toEqual(['two', 'three'])
    // A longer read than the copy holds asks the database.
    expect(contents(await memory.read('kept', { limit: 10 }))).toEqual(['one', 'two', 'three'])
  })

  it('keeps at most maxScopes copies, dropping the one read longest ago', async () => {
    const { memory } = cacheMemoryStore(createDatabaseMemoryStore(database.counter.db), {
      maxScopes: 2,
    })
    const queriesOf = async (scope: string) => {
      const before = database.counter.queries()
      await memory.read(scope)
      return database.counter.queries() - before
    }
    for (const scope of ['first', 'second', 'third']) await queriesOf(scope)
    expect(await queriesOf('second')).toBe(0)
    expect(await queriesOf('third')).toBe(0)
    // 'first' was dropped: it is read again, and 'second' (now the oldest copy) makes room
    expect(await queriesOf('first')).toBeGreaterThan(0)
    expect(await queriesOf('third')).toBe(0)
    expect(await queriesOf('second')).toBeGreaterThan(0)
  })

  it('sees a write made behind its back once invalidated, and a clear at once', async () => {
    const cached = cacheMemoryStore(createDatabaseMemoryStore(database.counter.db))
    const behind = createDatabaseMemoryStore(database.opened.db)
    expect(await cached.memory.read('elsewhere')).toEqual([])
    await behind.append('elsewhere', [note('from another process')])
    expect(await cached.memory.read('elsewhere')).toEqual([])
    cached.invalidate('elsewhere')
    expect(contents(await cached.memory.read('elsewhere'))).toEqual(['from another process'])
    await cached.memory.clear('elsewhere')
    expect(await cached.memory.read('elsewhere')).toEqual([])
  })

  it("drops every scope's copy when a topic of its announcements is told anything may have changed", async () => {
    const behind = createDatabaseMemoryStore(database.opened.db)
    const topics = Object.keys(memoryTopics(cacheMemoryStore(behind)))
    expect(topics).toHaveLength(2)
    for (const topic of topics) {
      const cached = cacheMemoryStore(createDatabaseMemoryStore(database.counter.db))
      const scopes = [`${topic}-one`, `${topic}-two`]
      for (const scope of scopes) expect(await cached.memory.read(scope)).toEqual([])
      for (const scope of scopes) await behind.append(scope, [note(`missed in ${scope}`)])
      // No key: an announcement may have been lost.
      memoryTopics(cached)[topic]!()
      for (const scope of scopes) {
        expect(contents(await cached.memory.read(scope))).toEqual([`missed in ${scope}`])
      }
    }
  })

  it('does not keep a read that overlapped a write, nor a copy two appends changed at once', async () => {
    const { memory } = cacheMemoryStore(createDatabaseMemoryStore(database.counter.db))
    await memory.read('busy')
    await Promise.all([memory.append('busy', [note('a')]), memory.append('busy', [note('b')])])
    const [read, written] = await Promise.all([
      memory.read('busy'),
      memory.append('busy', [note('c')]),
    ])
    void written
    expect(read.length).toBeGreaterThanOrEqual(2)
    const truth = contents(await createDatabaseMemoryStore(database.opened.db).read('busy'))
    expect(contents(await memory.read('busy'))).toEqual(truth)
  })

  it('keeps its copy through appends that overlap when the store commits them in order (the group commit)', async () => {
    const writer = createGroupCommit(database.counter.db)
    const { memory } = cacheMemoryStore(createDatabaseMemoryStore(database.counter.db, { writer }))
    await memory.read('ordered', { limit: 3 })
    const beforeAppends = database.counter.queries()
    // Ten at once, as ten A2A requests for one agent: one turn of the writer.
    await Promise.all(
      Array.from({ length: 10 }, (_, index) => memory.append('ordered', [note(`m${index}`)])),
    )
    expect(database.counter.queries()).toBe(beforeAppends + 1)
    expect(contents(await memory.read('ordered', { limit: 3 }))).toEqual(['m7', 'm8', 'm9'])
    expect(database.counter.queries()).toBe(beforeAppends + 1)
    const truth = await createDatabaseMemoryStore(database.opened.db).read('ordered', { limit: 3 })
    expect(contents(truth)).toEqual(['m7', 'm8', 'm9'])
  })

  it('drops the copy when one of the appends fails, even if the others are stored', async () => {
    const writer = createGroupCommit(database.counter.db)
    const stored = createDatabaseMemoryStore(database.counter.db, { writer })
    // A store whose append of "lost" commits and then fails (a connection lost before the
    // answer): the copy cannot know whether it is there.
    const { memory } = cacheMemoryStore({
      ...stored,
      async appendStored(scope, entries) {
        const appended = await stored.appendStored(scope, entries)
        if (entries.some((entry) => entry.content === 'lost')) throw new Error('answer lost')
        return appended
      },
    })
    await memory.read('faulty')
    const results = await Promise.allSettled([
      memory.append('faulty', [note('first')]),
      memory.append('faulty', [note('lost')]),
      memory.append('faulty', [note('last')]),
    ])
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    const beforeRead = database.counter.queries()
    expect(contents(await memory.read('faulty'))).toEqual(['first', 'lost', 'last'])
    expect(database.counter.queries()).toBe(beforeRead + 1)
  })

  it("puts another process's appends into its copy in the database's order, whatever order they are announced in", async () => {
    const cached = cacheMemoryStore(createDatabaseMemoryStore(database.counter.db))
    const elsewhere = createDatabaseMemoryStore(database.opened.db)
    await elsewhere.append('merged', [note('old 1'), note('old 2')])
    expect(contents(await cached.memory.read('merged', { limit: 3 }))).toEqual(['old 1', 'old 2'])
    const first = await elsewhere.appendStored('merged', [note('first')])
    const second = await elsewhere.appendStored('merged', [note('second')])
    const beforeAnnouncements = database.counter.queries()
    cached.appended('merged', second)
    cached.appended('merged', first)
    // Announced twice (a message seen again): kept once.
    cached.appended('merged', second)
    expect(contents(await cached.memory.read('merged', { limit: 3 }))).toEqual([
      'old 2',
      'first',
      'second',
    ])
    expect(database.counter.queries()).toBe(beforeAnnouncements)
    expect(contents(await elsewhere.read('merged', { limit: 3 }))).toEqual([
      'old 2',
      'first',
      'second',
    ])
    // An entry older than every one a full copy holds is not among the newest: not added.
    cached.appended('merged', [{ id: 1, entry: note('too old') }])
    expect(contents(await cached.memory.read('merged', { limit: 3 }))).toEqual([
      'old 2',
      'first',
      'second',
    ])
  })

  it('adds what is appended while a read is on its way to what the read brings', async () => {
    const slow = createDatabaseMemoryStore(database.counter.db)
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const cached = cacheMemoryStore({
      ...slow,
      async readStored(scope, options) {
        // The read's snapshot is taken now; it answers only after the append below.
        const read = await slow.readStored(scope, options)
        await gate
        return read
      },
    })
    const reading = cached.memory.read('racing', { limit: 5 })
    const late = await createDatabaseMemoryStore(database.opened.db).appendStored('racing', [
      note('committed after the read'),
    ])
    cached.appended('racing', late)
    release()
    expect(contents(await reading)).toEqual(['committed after the read'])
    const before = database.counter.queries()
    expect(contents(await cached.memory.read('racing', { limit: 5 }))).toEqual([
      'committed after the read',
    ])
    expect(database.counter.queries()).toBe(before)
  })

  it('forgets a copy after its time to live', async () => {
    let clock = 0
    const { memory } = cacheMemoryStore(createDatabaseMemoryStore(database.counter.db), {
      ttlMs: 1_000,
      now: () => clock,
    })
    await memory.read('aging')
    await createDatabaseMemoryStore(database.opened.db).append('aging', [note('later')])
    clock = 999
    expect(await memory.read('aging')).toEqual([])
    clock = 1_000
    expect(contents(await memory.read('aging'))).toEqual(['later'])
  })
})
