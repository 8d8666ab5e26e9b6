import type { PlanTool } from '@baton/mal'
import { z } from 'zod'

/**
 * Tools the server offers every plan's `tool` steps. `wait` pauses for `ms` (at most 10 s),
 * for plans that pace themselves (and for tests of long runs).
 *
 * @example
 * await runPlan(plan, { registry, tools: planTools() })
 */
export function planTools(): Record<string, PlanTool> {
  // One set for every run: the tools keep no state of their own.
  tools ??= { wait: waitTool() }
  return tools
}

let tools: Record<string, PlanTool> | undefined

function waitTool(): PlanTool {
  const wait = {
    description: 'Waits for `ms` milliseconds (at most 10000) and returns what it was given.',
    inputSchema: z.object({
      ms: z.number().int().min(0).max(10_000),
      value: z.unknown().optional(),
    }),
    execute: async (
      args: { ms: number; value?: unknown },
      options: { abortSignal?: AbortSignal },
    ) => {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, args.ms)
        options.abortSignal?.addEventListener(
          'abort',
          () => {
            clearTimeout(timer)
            reject(options.abortSignal?.reason)
          },
          { once: true },
        )
      })
      return { waitedMs: args.ms, value: args.value ?? null }
    },
  }
  return wait as unknown as PlanTool
}
