import { BatonError, type MemoryStore, runAgent } from '@baton/core'
import type { SubagentRunner } from '@baton/subagents'
import type { Tool, ToolSet } from 'ai'
import { createConclaveTools } from '../conclave/create-conclave-tools'
import { withGrantedTools } from '../granted-tools'
import type { HostTaskRequest } from './agent-host'
import { agentRunOptions, type HostRunOptions } from './agent-run-options'
import { answerText, cardOutput } from './card-output'

/** The runner of one `task` step, and what its turns left behind for the step's outcome. */
export type TaskRunner = SubagentRunner & {
  /** The budget's own error, when a turn ran out (the task's report keeps only a message). */
  readonly budgetError: BatonError | undefined
  /** The question the task asked its caller, if it asked one (no one can answer it). */
  readonly question: string | undefined
}

/**
 * Runs the turns of a `task` step (the task agent's and those of its sub-agents) with
 * `runAgent`, touching files only through the tools it is given, so the task's directory is
 * made only when it first touches a file and is snapshotted only when it wrote one. The tools
 * of each turn (the supervisor's, and the conclave's when the step has one) are listed on the
 * card the agent runs with; a step's `tools` narrows all of them.
 *
 * @example
 * const runner = createTaskRunner({ request, host: { models }, memory })
 * const report = await runTask({ agent, budget, workspace, runner, task: request.prompt })
 */
export function createTaskRunner(options: {
  request: HostTaskRequest
  host: HostRunOptions
  memory: MemoryStore | undefined
}): TaskRunner {
  const { request, memory } = options
  const output = cardOutput(request.agent)
  const conclaveTools = new Map<string, ToolSet>()
  const conclaveFor = (wallet: string): ToolSet => {
    if (!request.conclave) return {}
    let tools = conclaveTools.get(wallet)
    if (!tools) {
      tools = createConclaveTools({ ...request.conclave, wallet })
      conclaveTools.set(wallet, tools)
    }
    return tools
  }
  let budgetError: BatonError | undefined
  let question: string | undefined
  // The task's own sub-agent runs the first turn (nothing under it exists before); a question
  // from deeper down goes to the task agent, which may answer it.
  let taskAgent: object | undefined
  return {
    filesOnlyThroughTools: true,
    get budgetError() {
      return budgetError
    },
    get question() {
      return question
    },
    async run(turn) {
      const runtime = options.host.agentTools
        ? await options.host.agentTools(turn.agent, {
            budget: turn.budget,
            workspaceDir: turn.directory,
          })
        : {}
      const tools: ToolSet = { ...runtime, ...turn.tools, ...conclaveFor(turn.agent.wallet) }
      taskAgent ??= turn.agent
      const ask = turn.tools.ask_caller
      if (ask?.execute && turn.agent === taskAgent) {
        const execute = ask.execute
        tools.ask_caller = {
          ...ask,
          execute: (input: { question: string }, callOptions: unknown) => {
            question ??= input.question
            return execute(input, callOptions as never)
          },
        } as Tool
      }
      try {
        const result = await runAgent(
          withGrantedTools(turn.agent, Object.keys(tools)),
          turn.messages,
          {
            ...agentRunOptions({
              budget: turn.budget,
              host: options.host,
              extraTools: tools,
              toolBatches: request.toolBatches,
              signal: turn.signal,
              // Every turn's tool calls, the task agent's and its sub-agents', are the step's.
              onToolCall: request.onToolCall,
            }),
            ...(request.tools ? { tools: request.tools } : {}),
            ...(request.persona ? { persona: request.persona } : {}),
            ...(memory ? { memory } : {}),
            ...(output && turn.agent.wallet === request.agent.wallet ? { output } : {}),
            // The step streams the task agent's own text, not that of the sub-agents it starts.
            ...(request.onDelta && turn.agent === taskAgent ? { onDelta: request.onDelta } : {}),
          },
        )
        return { text: answerText(result), messages: result.messages }
      } catch (error) {
        if (BatonError.isInstance(error) && error.code === 'BUDGET_EXCEEDED') budgetError = error
        throw error
      }
    },
  }
}
