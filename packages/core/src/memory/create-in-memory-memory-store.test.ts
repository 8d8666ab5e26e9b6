import { describe, expect, it } from 'vitest'
import { createInMemoryMemoryStore } from './create-in-memory-memory-store'
import type { MemoryEntry } from './types'

const entry = (content: string, role: MemoryEntry['role'] = 'note'): MemoryEntry => ({
  role,
  content,
  createdAt: '2025-01-01T00:00:00.000Z',
})

describe('createInMemoryMemoryStore', () => {
  it('reads back what was appended, per scope, oldest first', async () => {
    const memory = createInMemoryMemoryStore()
    await memory.append('ada', [entry('one'), entry('two', 'user')])
    await memory.append('bob', [entry('other')])
    expect((await memory.read('ada')).map((e) => e.content)).toEqual(['one', 'two'])
    expect((await memory.read('bob')).map((e) => e.content)).toEqual(['other'])
    expect(await memory.read('nobody')).toEqual([])
  })

  it('returns the latest entries up to the limit', async () => {
    const memory = createInMemoryMemoryStore()
    await memory.append(
      'ada',
      ['a', 'b', 'c', 'd'].map((c) => entry(c)),
    )
    expect((await memory.read('ada', { limit: 2 })).map((e) => e.content)).toEqual(['c', 'd'])
    expect(await memory.read('ada', { limit: 0 })).toEqual([])
  })

  it('keeps at most maxEntriesPerScope entries, dropping the oldest', async () => {
    const memory = createInMemoryMemoryStore({ maxEntriesPerScope: 3 })
    for (const content of ['1', '2', '3', '4', '5']) await memory.append('ada', [entry(content)])
    expect((await memory.read('ada')).map((e) => e.content)).toEqual(['3', '4', '5'])
  })

  it('hands out copies, so callers cannot change what is stored', async () => {
    const memory = createInMemoryMemoryStore()
    const original = entry('kept')
    await memory.append('ada', [original])
    original.content = 'changed'
    const [read] = await memory.read('ada')
    read!.content = 'also changed'
    expect((await memory.read('ada'))[0]?.content).toBe('kept')
  })

  it('clears one scope', async () => {
    const memory = createInMemoryMemoryStore()
    await memory.append('ada', [entry('x')])
    await memory.append('bob', [entry('y')])
    await memory.clear('ada')
    expect(await memory.read('ada')).toEqual([])
    expect(await memory.read('bob')).toHaveLength(1)
  })

  it('refuses malformed entries and options, naming the field', async () => {
    const memory = createInMemoryMemoryStore()
    await expect(
      memory.append('ada', [{ role: 'robot', content: 'x', createdAt: 'now' } as never]),
    ).rejects.toThrow(/Invalid memory entries: \[0\]\.role/)
    await expect(memory.read('')).rejects.toThrow(/Invalid memory scope/)
    expect(() => createInMemoryMemoryStore({ maxEntriesPerScope: 0 })).toThrow(/maxEntriesPerScope/)
  })
})
