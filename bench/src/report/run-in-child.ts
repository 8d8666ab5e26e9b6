import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Size, Subject } from '../cases'
import { CHILD_NODE_FLAGS } from '../measure/node-flags'
import type { Outcome } from './types'

const benchDirectory = fileURLToPath(new URL('../..', import.meta.url))
const entry = fileURLToPath(new URL('../run-subject.ts', import.meta.url))

/**
 * Measures `subjects` of case `name` in a fresh Node process and returns what each reported;
 * a process that dies or overruns `timeoutMs` gives an error outcome for whatever it left out.
 *
 * @example
 * const outcomes = await runInChild({ name: 'bus', size: 'tiny', subjects: ['baton'], timeoutMs: 60_000 })
 */
export async function runInChild(options: {
  name: string
  size: Size
  subjects: Subject[]
  timeoutMs: number
  /** Writes a CPU profile of each subject's work (and of any server it loads) here. */
  profileDirectory?: string
}): Promise<Partial<Record<Subject, Outcome>>> {
  const { name, size, subjects, timeoutMs, profileDirectory } = options
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, entry, name, size, ...subjects], {
    cwd: benchDirectory,
    stdio: ['ignore', 'pipe', 'pipe'],
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
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    child.kill('SIGKILL')
  }, timeoutMs)
  await new Promise<void>((resolve) => child.on('close', () => resolve()))
  clearTimeout(timer)

  const outcomes: Partial<Record<Subject, Outcome>> = {}
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{"subject"')) continue
    const { subject, ...outcome } = JSON.parse(line) as { subject: Subject } & Outcome
    outcomes[subject] = outcome as Outcome
  }
  const lastError = stderr.trim().split('\n').filter(Boolean).at(-1)
  const reason = timedOut
    ? `did not finish within ${timeoutMs / 1000} s`
    : `its process ended without a figure${lastError ? `: ${lastError}` : ''}`
  for (const subject of subjects) outcomes[subject] ??= { ok: false, error: reason }
  return outcomes
}
