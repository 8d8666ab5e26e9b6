import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { installRedis, runRedisTests, startRedisServer } from '@baton/testing/redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const example = fileURLToPath(new URL('../__fixtures__/scaling-out-example.ts', import.meta.url))

if (!runRedisTests) console.warn(`Skipping the scaling-out example: ${installRedis}.`)

describe.skipIf(!runRedisTests)('the Redis example of docs/message-bus-rails.md', () => {
  let redis: { url: string; stop: () => void } | undefined
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(() => redis?.stop())

  it('delivers its message and exits by itself once the bus and the guard are closed', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@baton/source', example, redis?.url ?? ''],
      { cwd: fileURLToPath(new URL('.', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += String(chunk)
    })
    child.stderr.on('data', (chunk) => {
      output += String(chunk)
    })
    // Generous: a process that never exits is what this catches, not a slow one.
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
    )
    clearTimeout(timer)
    expect({ code, signal, output: output.trim() }).toEqual({
      code: 0,
      signal: null,
      output: 'review',
    })
  }, 90_000)
})
