import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { DEFAULT_RETENTION } from './message-history'

const bench = fileURLToPath(new URL('../../bench/retention.bench.ts', import.meta.url))

type RetentionReport = {
  messages: number
  delivered: number
  heapBeforeMb: number
  heapAfterMb: number
  heapSettledAtMb: Record<string, number>
  storedMessages: number
  storedCorrelations: number
  storeCorrelations: number
}

/** Runs the retention benchmark in its own process, with `gc()` exposed so heap figures settle. */
function runBench(): Promise<RetentionReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--conditions=@baton/source', bench],
      { cwd: fileURLToPath(new URL('.', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk)
    })
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk)
    })
    child.once('error', reject)
    child.once('exit', (code) => {
      // The benchmark prints its figures before it exits 1 on a retention failure; the
      // assertions below then say what was wrong.
      try {
        resolve(JSON.parse(stdout) as RetentionReport)
      } catch {
        reject(new Error(`the benchmark exited with ${code} and no figures:\n${stderr}`))
      }
    })
  })
}

describe('createMessageBus retention (1,000,000 messages)', () => {
  it('keeps the history and the heap bounded with the default retention', async () => {
    const report = await runBench()
    expect(report.messages).toBe(1_000_000)
    expect(report.delivered).toBe(1_000_000)
    // what is kept is capped by the default retention, whatever has gone through
    expect(report.storedMessages).toBeLessThanOrEqual(DEFAULT_RETENTION.maxMessages)
    expect(report.storedCorrelations).toBeLessThanOrEqual(DEFAULT_RETENTION.maxCorrelations)
    expect(report.storeCorrelations).toBe(report.storedCorrelations)
    // The settled heap stops growing once retention is full: the last three quarters of the
    // run add almost nothing. Keeping every envelope would add hundreds of MB; the margins are
    // wide so a busy machine cannot make this fail.
    const settled = Object.values(report.heapSettledAtMb)
    expect(settled).toHaveLength(4)
    const [firstQuarter = 0, , , last = 0] = settled
    expect(last - firstQuarter).toBeLessThan(20)
    expect(report.heapAfterMb - report.heapBeforeMb).toBeLessThan(150)
  }, 900_000)
})
