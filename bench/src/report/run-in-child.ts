import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Size, Subject } from '../cases'
import { CHILD_NODE_FLAGS } from '../measure/node-flags'
import type { Outcome } from './types'

const benchDirectory = fileURLToPath(new URL('../..', import.meta.url))
const entry = fileURLToPath(new URL('../run-subject.ts', import.meta.url))

/** One subject of one case to measure. */
export type Work = { name: string; subject: Subject }

/** Where a child's outcomes are found: `outcomes.get(workKey(work))`. */
export const workKey = (work: Work): string => `${work.name}:${work.subject}`

/**
 * Measures `work` (subjects of cases, in order) in a fresh Node process and returns what each
 * reported; a process that dies or overruns `timeoutMs` gives an error outcome for whatever
 * it left out.
 *
 * @example
 * const outcomes = await runInChild({ size: 'tiny', work: [{ name: 'bus', subject: 'baton' }], timeoutMs: 60_000 })
 * outcomes.get('bus:baton')
 */
export async function runInChild(options: {
  size: Size
  work: Work[]
  timeoutMs: number
  /** Writes a CPU profile of each subject's work (and of any server it loads) here. */
  profileDirectory?: string
}): Promise<Map<string, Outcome>> {
  const { size, work, timeoutMs, profileDirectory } = options
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, entry, size, ...work.map(workKey)], {
    cwd: benchDirectory,
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own: a timeout ends the servers it started with it.
    detached: true,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      // The measuring process profiles its work; servers a load test starts profile theirs.
      ...(profileDirectory ? { BATON_BENCH_PROFILE_DIR: profileDirectory } : {}),
    },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()))
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    killGroup(child.pid)
  }, timeoutMs)
  await new Promise<void>((resolve) => child.on('exit', () => resolve()))
  clearTimeout(timer)
  // Whatever it left running (a server a killed case started) holds its pipes open: end them,
  // then wait for the output still buffered in the pipes, which then closes at once.
  killGroup(child.pid)
  await closed

  const outcomes = new Map<string, Outcome>()
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{"case"')) continue
    const {
      case: name,
      subject,
      ...outcome
    } = JSON.parse(line) as { case: string; subject: Subject } & Outcome
    outcomes.set(workKey({ name, subject }), outcome as Outcome)
  }
  const lastError = stderr.trim().split('\n').filter(Boolean).at(-1)
  const reason = timedOut
    ? `did not finish within ${timeoutMs / 1000} s`
    : `its process ended without a figure${lastError ? `: ${lastError}` : ''}`
  for (const each of work) {
    if (!outcomes.has(workKey(each))) outcomes.set(workKey(each), { ok: false, error: reason })
  }
  return outcomes
}

/** SIGKILL to every process of the group `pid` leads; nothing when none is left. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, 'SIGKILL')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}
