import { BatonError, type ToolRegistry } from '@baton/core'
import type { Tool, ToolSet } from 'ai'

/** A run called tools in more batches than its plan's `maxToolBatches` allows. */
export class ToolBatchesExceededError extends BatonError {
  override name = 'ToolBatchesExceededError'
  constructor(options: { maxToolBatches: number }) {
    super(
      'TOOL_BATCHES_EXCEEDED',
      `The run may call tools in at most ${options.maxToolBatches} batches (its plan's maxToolBatches).`,
      { details: { ...options } },
    )
  }
}

/**
 * The run-wide count of tool batches: a `tool` step is one batch, and so is each model step
 * in which an agent calls tools (its calls run together). The batch past the limit is refused
 * before any of its tools runs, and `signal` aborts with the error, which ends the agent's run.
 */
export class ToolBatchLimit {
  readonly max: number
  readonly #controller = new AbortController()
  readonly #seen = new Set<string>()
  #runs = 0

  constructor(max: number) {
    this.max = max
  }

  /** Aborted with `ToolBatchesExceededError` once a batch was refused. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /**
   * Counts the batch `key` (once, however many tools it calls); throws past the limit.
   *
   * @example
   * limit.take('steps[2]') // a tool step
   */
  take(key: string): void {
    if (this.#seen.has(key)) return
    if (this.#seen.size >= this.max) {
      const error = new ToolBatchesExceededError({ maxToolBatches: this.max })
      this.#controller.abort(error)
      throw error
    }
    this.#seen.add(key)
  }

  /**
   * The tools of one agent run, counted: calls made from the same model step (the same
   * conversation so far) are one batch.
   *
   * @example
   * const counted = limit.wrapRegistry(toolRegistry)
   * await runAgent(agent, prompt, { toolRegistry: counted, signal: AbortSignal.any([signal, limit.signal]) })
   */
  wrapRegistry(registry: ToolRegistry): ToolRegistry {
    return this.#wrapRegistry(`run-${++this.#runs}`, registry)
  }

  /**
   * The tools of one agent run, registry and runtime extras alike (file, delegation and
   * conclave tools), counted together: one model step that calls both is one batch.
   *
   * @example
   * const counted = limit.wrapRun({ toolRegistry, extraTools })
   * await runAgent(agent, prompt, { ...counted, signal: AbortSignal.any([signal, limit.signal]) })
   */
  wrapRun(tools: { toolRegistry?: ToolRegistry; extraTools: ToolSet }): {
    toolRegistry?: ToolRegistry
    extraTools: ToolSet
  } {
    const run = `run-${++this.#runs}`
    return {
      ...(tools.toolRegistry ? { toolRegistry: this.#wrapRegistry(run, tools.toolRegistry) } : {}),
      extraTools: this.#wrapSet(run, tools.extraTools),
    }
  }

  #wrapSet(run: string, tools: ToolSet): ToolSet {
    return Object.fromEntries(
      Object.entries(tools).map(([name, tool]) => [name, this.#wrap(run, tool)]),
    )
  }

  #wrapRegistry(run: string, registry: ToolRegistry): ToolRegistry {
    const wrapSet = (tools: ToolSet): ToolSet => this.#wrapSet(run, tools)
    return {
      register: (name, tool) => registry.register(name, tool),
      get: (name) => {
        const tool = registry.get(name)
        return tool ? this.#wrap(run, tool) : undefined
      },
      names: () => registry.names(),
      bind: (allowed, narrow) => wrapSet(registry.bind(allowed, narrow)),
    }
  }

  #wrap(run: string, tool: Tool): Tool {
    const execute = tool.execute
    if (!execute) return tool
    const counted: Tool['execute'] = (input, options) => {
      this.take(`${run}:${options.messages.length}`)
      return execute(input, options)
    }
    return { ...tool, execute: counted } as Tool
  }
}
