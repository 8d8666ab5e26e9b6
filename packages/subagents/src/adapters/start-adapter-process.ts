import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import type { Budget } from '@baton/core'
import { groupGone, signalGroup, stopGroup } from '../workspace/stop-group'
import { adapterEnvironment } from './adapter-environment'
import { AdapterProcessError } from './adapter-errors'
import { checkAdapterArguments } from './check-adapter-arguments'
import { parseBatonLine } from './parse-baton-line'
import type { AdapterEvent, AdapterTurnContext, AgentAdapter } from './types'

export type StartAdapterProcessOptions = {
  adapter: AgentAdapter
  task: string
  directory: string
  context: AdapterTurnContext
  /** Usage lines are charged here; its abort (exhaustion, deadline, cancel) stops the process. */
  budget: Budget
  wallet?: string
  onQuestion?: (question: string) => void
}

export type AdapterOutcome = { text: string; sessionId?: string }

/** A running external agent. */
export interface AdapterProcess {
  readonly pid: number | undefined
  /** Resolves with its report; rejects with the budget's abort reason or an `AdapterProcessError`. */
  readonly outcome: Promise<AdapterOutcome>
  /** Writes the answer to a question to its stdin. */
  answer(text: string): void
  /** SIGTERM to its process group, SIGKILL after the grace period; resolves once it has exited. */
  stop(): Promise<void>
}

/**
 * Starts an external agent in its own process group, with `directory` as its working directory
 * and only the environment its adapter allows (`adapterEnvironment`).
 *
 * @example
 * const child = startAdapterProcess({ adapter: codexAdapter, task, directory, context: { turn: 1 }, budget })
 * const { text } = await child.outcome
 */
export function startAdapterProcess(options: StartAdapterProcessOptions): AdapterProcess {
  const { adapter, budget } = options
  budget.throwIfAborted()
  const args = adapter.args(options.task, options.directory, options.context)
  checkAdapterArguments({ command: adapter.command, args, task: options.task })
  const child = spawn(adapter.command, args, {
    cwd: options.directory,
    // A group of its own, so a stop reaches everything it started.
    detached: true,
    env: adapterEnvironment(adapter),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  )
  const stop = () => stopGroup(child, exited, adapter.killGraceMs ?? 2000)
  const outcome = collect({ ...options, child, exited, stop })
  // Avoid an unhandled rejection when the caller only ever stops it.
  outcome.catch(() => {})
  return {
    pid: child.pid,
    outcome,
    answer: (text) => {
      child.stdin?.write(`${JSON.stringify({ type: 'answer', text })}\n`)
    },
    stop,
  }
}

async function collect(
  options: StartAdapterProcessOptions & {
    child: ChildProcess
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
    stop: () => Promise<void>
  },
): Promise<AdapterOutcome> {
  const { adapter, budget, child } = options
  const parse = adapter.parse ?? parseBatonLine
  let failure: unknown
  let lastText = ''
  let result: string | undefined
  let sessionId: string | undefined
  let chargedCost = 0
  let stderr = ''
  let spawnError: Error | undefined
  child.once('error', (error) => {
    spawnError = error
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2000)
  })
  child.stdin?.on('error', () => {})
  const fail = (error: unknown) => {
    failure ??= error
    void options.stop()
  }
  const onAbort = () => fail(budget.signal.reason)
  budget.signal.addEventListener('abort', onAbort, { once: true })
  const charge = (usage: { calls?: number; tokens?: number; costUsd?: number }) => {
    try {
      budget.charge(usage, options.wallet ? { wallet: options.wallet } : {})
      chargedCost += usage.costUsd ?? 0
    } catch (error) {
      fail(error)
    }
  }
  const handle = (event: AdapterEvent) => {
    if (failure) return
    switch (event.type) {
      case 'text':
        lastText = event.text
        break
      case 'usage':
        charge({
          calls: event.calls ?? 1,
          tokens: event.tokens ?? (event.inputTokens ?? 0) + (event.outputTokens ?? 0),
          costUsd: event.costUsd ?? 0,
        })
        break
      case 'question':
        options.onQuestion?.(event.text)
        break
      case 'session':
        sessionId = event.sessionId
        break
      case 'result':
        result = event.text
        sessionId = event.sessionId ?? sessionId
        if (event.costUsd !== undefined && event.costUsd > chargedCost) {
          charge({ costUsd: event.costUsd - chargedCost })
        }
        break
      case 'error':
        fail(new AdapterProcessError({ command: adapter.command, reason: event.message }))
        break
    }
  }
  if (child.stdout) {
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity })
    lines.on('line', (line) => {
      const parsed = parse(line)
      for (const event of Array.isArray(parsed) ? parsed : parsed ? [parsed] : []) handle(event)
    })
  }
  const { code, signal } = await options.exited
  budget.signal.removeEventListener('abort', onAbort)
  // Nothing it started may outlive its turn.
  if (child.pid !== undefined) {
    signalGroup(child.pid, 'SIGKILL')
    await groupGone(child.pid, 1000)
  }
  if (failure) throw failure
  if (spawnError) {
    throw new AdapterProcessError({ command: adapter.command, reason: spawnError.message })
  }
  if (code !== 0) {
    throw new AdapterProcessError({
      command: adapter.command,
      reason: signal ? `killed by ${signal}` : `exited with code ${code}`,
      exitCode: code,
      stderr: stderr.trim(),
    })
  }
  return { text: result ?? lastText, ...(sessionId ? { sessionId } : {}) }
}
