import { type ModelMessage, modelMessageSchema, type ToolSet } from 'ai'
import { z } from 'zod'
import { followsSignal } from '../budget/create-budget'
import { BatonError } from '../errors/baton-error'
import type { MemoryStore } from '../memory/types'
import { defaultModelRegistry } from '../models/default-model-registry'
import { defaultPriceTable } from '../models/price-table'
import { sumUsd } from '../money/usd-units'
import type { Agent } from '../schemas'
import { parseWith } from '../schemas/parse'
import { withAgentSpan } from '../telemetry/agent-span'
import { assertAllowed } from '../tools/create-tool-registry'
import { UnknownToolError } from '../tools/tool-errors'
import { isToolPattern, matchesToolPattern } from '../tools/tool-patterns'
import { AgentRunError } from './agent-errors'
import { runAgentLoop } from './agent-loop'
import { BudgetCharger, type CallCharge } from './budget-charger'
import { BudgetedModel } from './budgeted-model'
import { linkedSignal } from './linked-signal'
import { runnableCard, systemPrompt } from './runnable-card'
import { toAgentStep } from './to-agent-step'
import { inputText, toMessages } from './to-messages'
import type { AgentRunResult, AgentStep, RunAgentOptions } from './types'

/**
 * Options that `RunOptions` would accept as they are, told by plain checks (a host passes the
 * same well-formed options on every run); anything else goes through zod, which names the bad
 * field.
 */
function isPlainlyValid(options: RunAgentOptions): boolean {
  const unprovided = options.unprovidedTools
  return (
    typeof (options.budget as { reserve?: unknown } | undefined)?.reserve === 'function' &&
    (options.tools === undefined || isStringArray(options.tools)) &&
    (unprovided === undefined ||
      unprovided === 'throw' ||
      unprovided === 'skip' ||
      isStringArray(unprovided)) &&
    isCount(options.maxIterations, 1) &&
    isCount(options.memoryLimit, 0) &&
    isCount(options.maxRetries, 0)
  )
}

/**
 * A conversation of text messages only (`{ role: 'system' | 'user' | 'assistant', content:
 * string }`, nothing else), as a sub-agent's turn or a host's chat builds it: valid by the AI
 * SDK's schema without running it. Anything else goes through the schema.
 */
function isPlainConversation(input: unknown): boolean {
  if (!Array.isArray(input) || input.length === 0) return false
  for (const message of input) {
    if (typeof message !== 'object' || message === null) return false
    const { role, content } = message as { role?: unknown; content?: unknown }
    if (role !== 'user' && role !== 'assistant' && role !== 'system') return false
    if (typeof content !== 'string') return false
    let fields = 0
    for (const key in message) {
      if (!Object.hasOwn(message, key)) continue
      fields += 1
      if (fields > 2) return false
    }
    if (fields !== 2) return false
  }
  return true
}

function isStringArray(value: unknown): boolean {
  if (!Array.isArray(value)) return false
  for (const entry of value) if (typeof entry !== 'string') return false
  return true
}

function isCount(value: unknown, least: number): boolean {
  return value === undefined || (Number.isSafeInteger(value) && (value as number) >= least)
}

const RunOptions = z.object({
  budget: z.custom<RunAgentOptions['budget']>(
    (value) => typeof (value as { reserve?: unknown } | undefined)?.reserve === 'function',
    'must be a budget (see createBudget)',
  ),
  tools: z.array(z.string()).optional(),
  unprovidedTools: z.union([z.enum(['throw', 'skip']), z.array(z.string())]).optional(),
  maxIterations: z.number().int().min(1).optional(),
  memoryLimit: z.number().int().min(0).optional(),
  maxRetries: z.number().int().min(0).optional(),
})

// The conversation is checked here, once per run, against the AI SDK's own message schema;
// the loop then sends it on without checking it again on every model call.
const Input = z.union([z.string(), z.array(modelMessageSchema).min(1)])

/**
 * Runs an agent: its card's model, the tools its card lists (narrowed by `options.tools`; an
 * `extraTools` entry is bound only when the card lists its name),
 * at most `maxIterations` model calls, each reserved on `options.budget` before it is made and
 * settled after, charged to the agent's wallet. Memory of the agent's scope is recalled first
 * and the exchange is appended after a successful run. With `onDelta` the run is streamed: each
 * model call goes through `doStream` and its text, reasoning, tool calls and tool results are
 * handed to `onDelta` as they come (the result is the same as without it).
 *
 * @example
 * const result = await runAgent(agent, 'Summarize the incidents', { budget: createBudget({ calls: 5 }) })
 * result.text // 'Ada (worker): Here is my response to ...'
 * result.usage // { calls: 1, tokens: 57, costUsd: 0.0000093 }
 */
export function runAgent(
  agent: Agent,
  input: string | ModelMessage[],
  options: RunAgentOptions,
): Promise<AgentRunResult> {
  // Every entry point (delegate, task, hosted message, swarm member) runs an agent here.
  return withAgentSpan({ wallet: agent.wallet, name: agent.name, model: agent.model }, () =>
    runAgentTurn(agent, input, options),
  )
}

const NO_MEMORY: Awaited<ReturnType<MemoryStore['read']>> = []

async function runAgentTurn(
  agent: Agent,
  input: string | ModelMessage[],
  options: RunAgentOptions,
): Promise<AgentRunResult> {
  const card = runnableCard(agent)
  const settings = isPlainlyValid(options)
    ? options
    : parseWith(RunOptions, options, 'runAgent options')
  if (typeof input !== 'string' && !isPlainConversation(input)) {
    parseWith(Input, input, 'agent input')
  }
  const { budget } = options
  budget.throwIfAborted()
  if (options.signal?.aborted) throw options.signal.reason

  const tools = bindTools(card.tools, options)
  const models = options.models ?? defaultModelRegistry()
  const base = models.prices ?? defaultPriceTable
  // Merged only when the run overrides prices: a fresh copy per run makes every look-up slower.
  const prices = options.prices ? { ...base, ...options.prices } : base
  const charges: CallCharge[] = []
  const model = new BudgetedModel(
    // The registry's network providers retry their own calls; the run's setting reaches them.
    models.languageModel(
      card.model,
      settings.maxRetries === undefined ? undefined : { maxRetries: settings.maxRetries },
    ),
    new BudgetCharger({
      budget,
      model: card.model,
      prices,
      wallet: card.wallet,
      onCharge: (charge) => charges.push(charge),
      signalFromBudget: true,
    }),
  )
  // Its own memory unless its card names a scope it shares with others.
  const memoryScope = card.memoryScope ?? card.wallet
  // Awaited even without a store: a run reserves its first call on a later turn, never within
  // the `runAgent` call, so a caller that makes sibling budgets one run after another (each a
  // child capped by what its parent has left then) makes them all before any of them spends.
  const memory = await (options.memory
    ? options.memory.read(memoryScope, { limit: settings.memoryLimit ?? 20 })
    : NO_MEMORY)
  const steps: AgentStep[] = []
  // A caller's signal that is the budget's own or an ancestor's is followed already.
  const callerSignal =
    options.signal && !followsSignal(budget, options.signal) ? options.signal : undefined
  // With no other signal the run's is the budget's, made only when something needs it (a
  // model that reads its call's, a tool, a retry): a sub-agent per branch makes none.
  const linked = callerSignal ? linkedSignal(budget.signal, callerSignal) : undefined

  try {
    const result = await runAgentLoop({
      model,
      system: systemPrompt(card, options.persona ?? card.persona),
      messages: toMessages(memory, input),
      tools,
      maxSteps: Math.min(settings.maxIterations ?? card.maxIterations, card.maxIterations),
      signal: linked ? () => linked.signal : () => budget.signal,
      callSignal: linked?.signal,
      maxRetries: settings.maxRetries ?? 2,
      output: options.output,
      temperature: card.temperature,
      onDelta: options.onDelta,
      onToolCall: options.onToolCall
        ? (report) => options.onToolCall?.({ ...report, wallet: card.wallet })
        : undefined,
      toolContext: options.toolContext,
      onStep: (step) => {
        const agentStep = toAgentStep({ step, index: steps.length, charge: charges[steps.length] })
        steps.push(agentStep)
        options.onStep?.(agentStep)
      },
    })
    if (options.memory) {
      const createdAt = new Date().toISOString()
      await options.memory.append(memoryScope, [
        { role: 'user', content: inputText(input), wallet: card.wallet, createdAt },
        { role: 'assistant', content: result.text, wallet: card.wallet, createdAt },
      ])
    }
    return {
      text: result.text,
      usage: {
        calls: charges.length,
        tokens: charges.reduce((sum, charge) => sum + charge.tokens, 0),
        // Summed as the budget's books are, so the two always agree.
        costUsd:
          charges.length === 1
            ? charges[0]!.costUsd
            : sumUsd(charges.map((charge) => charge.costUsd)),
      },
      steps,
      wallet: card.wallet,
      finishReason: result.finishReason,
      messages: result.messages,
      ...(options.output ? { output: result.output } : {}),
    }
  } catch (error) {
    // Whatever the SDK made of an abort, the caller gets the reason (budget exhausted, cancelled...).
    if (linked?.signal.aborted) throw linked.signal.reason
    if (budget.aborted) throw budget.signal.reason
    if (BatonError.isInstance(error)) throw error
    throw new AgentRunError({
      agent: card.name,
      wallet: card.wallet,
      model: card.model,
      cause: error,
    })
  } finally {
    linked?.dispose()
  }
}

/**
 * The tools of one run. The card's list (narrowed by `options.tools`, which may only name
 * tools the card lists) gates every tool: the tool registry's and the runtime's extras alike,
 * so an extra the card does not list is never bound and `tools: []` binds none. A runtime that
 * grants tools records the grant by listing their names on the card it passes. A listed tool
 * that neither provides is an `UnknownToolError` before any model call (or, with
 * `unprovidedTools: 'skip'`, left out of the run). An entry ending in `*`
 * (`mcp__files__*`) is a pattern: it binds every tool offered under that prefix.
 */
function bindTools(allowed: string[], options: RunAgentOptions): ToolSet {
  assertAllowed(allowed, options.tools)
  const extra = options.extraTools ?? {}
  const registry = options.toolRegistry
  const tools: ToolSet = {}
  for (const name of options.tools ?? allowed) {
    if (isToolPattern(name)) {
      // A pattern (`mcp__files__*`) binds whatever the runtime and the registry offer under it.
      for (const offered of [...Object.keys(extra), ...(registry?.names() ?? [])]) {
        if (!Object.hasOwn(tools, offered) && matchesToolPattern(name, offered)) {
          const granted = Object.hasOwn(extra, offered) ? extra[offered] : registry?.get(offered)
          if (granted) tools[offered] = granted
        }
      }
      continue
    }
    const granted = Object.hasOwn(extra, name) ? extra[name] : registry?.get(name)
    if (!granted) {
      const unprovided = options.unprovidedTools
      if (unprovided === 'skip' || (Array.isArray(unprovided) && unprovided.includes(name))) {
        continue
      }
      throw new UnknownToolError({
        toolName: name,
        registered: [...(registry?.names() ?? []), ...Object.keys(extra)],
      })
    }
    tools[name] = granted
  }
  return tools
}
