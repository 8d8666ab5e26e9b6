import { randomUUID } from 'node:crypto'
import { BatonError } from '@baton/core'
import type { ScratchStep, ToolStep } from '../../plan'
import { renderTemplate, renderValue } from '../../template'
import { ToolNotFoundError, ToolStepError } from '../run-errors'
import type { StepContext, StepOutcome } from './step-context'

type StandardSchema = {
  '~standard': {
    validate(value: unknown): unknown
  }
}
type StandardResult = { value?: unknown; issues?: readonly { message: string }[] }

/**
 * Runs a `tool` step: the tool from `tools` (or `toolRegistry`) with the rendered `args`,
 * checked against the tool's input schema first.
 *
 * @example
 * const { value } = await runToolStep(context) // value: what the tool returned
 */
export async function runToolStep(context: StepContext<ToolStep>): Promise<StepOutcome> {
  const { step, budget, scope, services } = context
  const tool = services.tools[step.toolName] ?? services.toolRegistry?.get(step.toolName)
  if (!tool) {
    throw new ToolNotFoundError({
      toolName: step.toolName,
      available: [...Object.keys(services.tools), ...(services.toolRegistry?.names() ?? [])],
    })
  }
  if (!tool.execute) {
    throw new ToolStepError({ toolName: step.toolName, reason: 'it has no execute function' })
  }
  // One tool step is one batch of the run's maxToolBatches (each time it runs).
  services.toolBatches?.take(`tool-step:${randomUUID()}`)
  let args = renderValue(step.args, scope)
  const schema = tool.inputSchema as unknown
  if (schema && typeof schema === 'object' && '~standard' in schema) {
    const checked = (await (schema as StandardSchema)['~standard'].validate(args)) as StandardResult
    if (checked.issues) {
      const reason = checked.issues.map((issue) => issue.message).join('; ')
      throw new ToolStepError({
        toolName: step.toolName,
        reason: `its arguments are invalid: ${reason}`,
      })
    }
    args = checked.value
  }
  budget.throwIfAborted()
  try {
    let result: unknown = await tool.execute(args as never, {
      toolCallId: `mal-${randomUUID()}`,
      messages: [],
      abortSignal: budget.signal,
    })
    // A streaming tool yields partial results; its last one is the result.
    if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
      let last: unknown
      for await (const part of result as AsyncIterable<unknown>) last = part
      result = last
    }
    return { value: result ?? null, wallet: services.coordinatorWallet }
  } catch (error) {
    if (budget.signal.aborted) throw budget.signal.reason
    if (BatonError.isInstance(error)) throw error
    throw new ToolStepError({
      toolName: step.toolName,
      reason: error instanceof Error ? error.message : String(error),
      cause: error,
    })
  }
}

/**
 * Runs a `scratch` step on the run's scratchpad (kept with the run's state across a pause).
 * `read` of a missing key gives `null`; `list` the keys; `delete` whether the key existed.
 *
 * @example
 * runScratchStep(context) // { value: ['notes', 'todo'], wallet: 'coordinator' } for list
 */
export function runScratchStep(context: StepContext<ScratchStep>): StepOutcome {
  const { step, scope, services } = context
  const { scratch } = services
  const key = step.key === undefined ? undefined : renderTemplate(step.key, scope)
  const wallet = services.coordinatorWallet
  switch (step.action) {
    case 'write': {
      const value = renderValue(step.value, scope)
      scratch[key!] = value
      return { value, wallet }
    }
    case 'read':
      return { value: Object.hasOwn(scratch, key!) ? scratch[key!] : null, wallet }
    case 'list':
      return { value: Object.keys(scratch), wallet }
    case 'delete': {
      const existed = Object.hasOwn(scratch, key!)
      delete scratch[key!]
      return { value: existed, wallet }
    }
  }
}
