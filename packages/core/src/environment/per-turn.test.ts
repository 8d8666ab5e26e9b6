import { afterEach, describe, expect, it, vi } from 'vitest'
import { defaultModelRegistry } from '../models/default-model-registry'
import { capturesMessageContent } from '../telemetry/capture-content'
import { perTurn } from './per-turn'

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('perTurn', () => {
  it('reads once per turn of the event loop, and again in the next turn', async () => {
    let reads = 0
    let source = 'a'
    const current = perTurn(() => {
      reads += 1
      return source
    })
    expect([current(), current(), current()]).toEqual(['a', 'a', 'a'])
    expect(reads).toBe(1)
    source = 'b'
    // Changed in this turn: the turn keeps what it read.
    expect(current()).toBe('a')
    await Promise.resolve() // a microtask is the same turn
    expect(current()).toBe('a')
    await nextTurn()
    expect(current()).toBe('b')
    expect(reads).toBe(2)
  })

  it('keeps undefined and false as read values, not as "not read"', () => {
    let reads = 0
    const nothing = perTurn(() => {
      reads += 1
      return undefined
    })
    const no = perTurn(() => {
      reads += 1
      return false
    })
    nothing()
    nothing()
    no()
    no()
    expect(reads).toBe(2)
  })

  it('does not keep a process alive: its reset is unref’d', () => {
    const spy = vi.spyOn(globalThis, 'setImmediate')
    perTurn(() => 1)()
    const immediate = spy.mock.results[0]?.value as NodeJS.Immediate
    expect(immediate.hasRef()).toBe(false)
    spy.mockRestore()
  })
})

describe('settings read per turn', () => {
  it('rebuilds the default model registry when a provider variable changes, from the next turn', async () => {
    await nextTurn()
    const before = defaultModelRegistry()
    expect(defaultModelRegistry()).toBe(before)
    vi.stubEnv('OPENAI_BASE_URL', 'http://127.0.0.1:9/v1')
    expect(defaultModelRegistry()).toBe(before)
    await nextTurn()
    const after = defaultModelRegistry()
    expect(after).not.toBe(before)
    await nextTurn()
    expect(defaultModelRegistry()).toBe(after)
  })

  it('turns content capture on from the next turn after the variable is set', async () => {
    await nextTurn()
    expect(capturesMessageContent()).toBe(false)
    vi.stubEnv('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', 'TRUE')
    expect(capturesMessageContent()).toBe(false)
    await nextTurn()
    expect(capturesMessageContent()).toBe(true)
  })
})
