import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createBudget } from '@baton/core'
import {
  createAgentRunner,
  createSupervisor,
  type SubagentRunner,
  type SubagentTurn,
} from '@baton/subagents'
import type { ToolExecutionOptions } from 'ai'
import { delegatingAgent } from '../../fixtures'
import { createInstantLanguageModel, createInstantModels } from '../../instant'
import { timeRuns } from '../../measure'
import { formatNumber } from '../../report/format-number'
import type { Figure, Subjects } from '../types'
import { depthsOf } from './nested-case'

/** Calls one of the turn's tools as `runAgent` calls it for a model: with the turn's context. */
async function execute(turn: SubagentTurn, name: string, input: unknown): Promise<unknown> {
  const found = turn.tools[name]
  if (!found?.execute) throw new Error(`the sub-agent has no ${name} tool`)
  const call: ToolExecutionOptions = { toolCallId: 'bench', messages: [] }
  if (turn.toolContext !== undefined) call.experimental_context = turn.toolContext
  return found.execute(input as never, call)
}

/**
 * A sub-agent's turn: one instant model call (through the default runner, with all its tools),
 * then, above the bottom level, one `delegate_agent` to the next level and a `wait_agents` for it:
 * the tool calls a model would make, made by the runner so the model stays instant.
 */
function delegatingRunner(
  depth: number,
  reached: { depth: number; atBottom?: () => void },
): SubagentRunner {
  const base = createAgentRunner()
  return {
    // What a model would do through the default runner: files change only through the tools
    // (this runner writes none itself), so directories are made when a file tool first needs
    // one, as the default runner's are.
    filesOnlyThroughTools: base.filesOnlyThroughTools === true,
    // It calls the tools as `runAgent` does, handing each call the turn's context.
    passesToolContext: base.passesToolContext === true,
    async run(turn) {
      const result = await base.run(turn)
      const level = Number(/level (\d+)/.exec(String(turn.messages.at(-1)?.content))?.[1])
      reached.depth = Math.max(reached.depth, level)
      if (level === depth) reached.atBottom?.()
      if (level < depth) {
        const { id } = (await execute(turn, 'delegate_agent', {
          task: `level ${level + 1}`,
        })) as { id: string }
        const reports = (await execute(turn, 'wait_agents', { ids: [id] })) as Record<
          string,
          { status: string; error?: string }
        >
        const report = reports[id]
        if (report?.status !== 'done') {
          throw new Error(`level ${level + 1} ended ${report?.status}: ${report?.error ?? ''}`)
        }
      }
      return result
    },
  }
}

type Nested = { depth: number; cleanup: () => Promise<void> }

/** One tree of `depth` levels, timed to its last report; its clean-up is left to the caller. */
async function nest(depth: number, atBottom?: () => void): Promise<Nested> {
  const root = await mkdtemp(path.join(tmpdir(), 'baton-bench-nested-'))
  const reached = { depth: 0, ...(atBottom ? { atBottom } : {}) }
  const supervisor = createSupervisor({
    agent: delegatingAgent,
    workspace: { kind: 'directory', root },
    budget: createBudget(),
    models: createInstantModels(),
    runner: delegatingRunner(depth, reached),
    maxDepth: depth,
  })
  const cleanup = async () => {
    try {
      await supervisor.cleanup()
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  }
  const id = supervisor.delegate('level 1')
  const report = (await supervisor.waitAgents([id]))?.[id]
  if (report?.status !== 'done' || reached.depth < depth) {
    await cleanup()
    throw new Error(
      `depth ${depth}: reached level ${reached.depth}, ${report?.status}: ${report?.error ?? ''}`,
    )
  }
  return { depth, cleanup }
}

/**
 * A tree's time per level, warm (see `timeRuns`: the mean of the timed trees after the first
 * and a second untimed), with the first tree's beside; the last tree's clean-up is timed apart.
 */
async function perLevel(depth: number, warmUp?: () => Promise<unknown>) {
  let cleanupMs = 0
  const timed = await timeRuns({
    ...(warmUp ? { warmUp } : {}),
    run: () => nest(depth),
    cleanup: async (tree) => {
      const started = performance.now()
      await tree.cleanup()
      cleanupMs = performance.now() - started
    },
  })
  return { ms: timed.ms / depth, firstMs: timed.firstMs / depth, cleanupMs }
}

/**
 * The heap each waiting level holds: one more tree, untimed, measured when its bottom level
 * runs (every level above it waiting), against the settled heap before it. `undefined` when the
 * process has no `gc()` to settle the heap with.
 */
async function heapPerLevel(depth: number): Promise<number | undefined> {
  const gc = globalThis.gc
  if (!gc) return undefined
  gc()
  const before = process.memoryUsage().heapUsed
  let bottom = before
  const tree = await nest(depth, () => {
    gc()
    bottom = process.memoryUsage().heapUsed
  })
  await tree.cleanup()
  return (bottom - before) / (depth - 1)
}

/** A tree of N levels, each waiting for the one below it. */
export const nestedSubjects: Subjects = {
  async bare(size) {
    const model = createInstantLanguageModel()
    const [shallow, deep] = depthsOf(size)
    const level = async (index: number, depth: number): Promise<void> => {
      await model.doGenerate({ prompt: [] })
      if (index < depth) await level(index + 1, depth)
    }
    // Warm, as Baton's trees are.
    const timeOf = async (depth: number) =>
      (await timeRuns({ run: () => level(1, depth) })).ms / depth
    const shallowMs = await timeOf(shallow)
    const deepMs = await timeOf(deep)
    return {
      value: deepMs,
      text: `${formatNumber(shallowMs)} at depth ${shallow}, ${formatNumber(deepMs)} at depth ${deep}`,
      details: { shallowMs, deepMs },
    }
  },

  async baton(size): Promise<Figure> {
    const [shallow, deep] = depthsOf(size)
    const first = await perLevel(shallow, async () => (await nest(Math.min(5, shallow))).cleanup())
    const shallowText = `${formatNumber(first.ms)} at depth ${shallow}`
    try {
      const second = await perLevel(deep)
      const heapBytes = await heapPerLevel(deep)
      const heapText =
        heapBytes === undefined
          ? ''
          : `; heap ${formatNumber(heapBytes / 1024)} KiB per waiting level`
      return {
        value: second.ms,
        text: `${shallowText}, ${formatNumber(second.ms)} at depth ${deep} (first tree ${formatNumber(second.firstMs)}; cleanup ${formatNumber(second.cleanupMs)} ms${heapText})`,
        details: {
          ...(heapBytes === undefined ? {} : { deepHeapBytesPerLevel: Math.round(heapBytes) }),
          shallowMs: first.ms,
          deepMs: second.ms,
          shallowFirstMs: first.firstMs,
          deepFirstMs: second.firstMs,
          deepCleanupMs: second.cleanupMs,
        },
      }
    } catch (error) {
      // The shallow figure still stands; the row says why the deep tree did not.
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
      return {
        value: first.ms,
        text: `${shallowText}; depth ${deep} failed: ${reason?.slice(0, 120)}`,
        details: { shallowMs: first.ms, deepError: reason ?? '' },
      }
    }
  },
}
