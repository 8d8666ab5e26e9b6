import { type HandoffInputData, handoff, Agent as OpenAIAgent, Runner } from '@openai/agents'
import { timePerOperation } from '../../measure'
import { createInstantAgentsProvider } from '../../peers/agents'
import { formatNumber } from '../../report/format-number'
import type { Figure, Size } from '../types'
import { hops } from './hops'

/** Each hand-off sees only the run's original input, as each MAL `delegate` sees only its prompt. */
function trimHistory(data: HandoffInputData): HandoffInputData {
  const first =
    typeof data.inputHistory === 'string' ? data.inputHistory : data.inputHistory.slice(0, 1)
  return { ...data, inputHistory: first, preHandoffItems: [], newItems: [] }
}

function agentsChain(count: number, trimmed: boolean): OpenAIAgent {
  let next: OpenAIAgent | undefined
  for (let index = count - 1; index >= 0; index -= 1) {
    const target = next
    const handoffs = target
      ? [trimmed ? handoff(target, { inputFilter: trimHistory }) : target]
      : []
    next = new OpenAIAgent({ name: `agent_${index}`, instructions: 'Hand on.', handoffs })
  }
  return next!
}

/** The chain as hand-offs, with the history trimmed to the first input and as the SDK keeps it. */
export async function subject(size: Size): Promise<Figure> {
  const count = hops(size)
  const runner = new Runner({
    modelProvider: createInstantAgentsProvider(),
    tracingDisabled: true,
  })
  const runChain = async (first: OpenAIAgent, length: number) => {
    const result = await runner.run(first, 'Go', { maxTurns: length + 10 })
    if (result.lastAgent?.name !== `agent_${length - 1}`) {
      throw new Error(`the chain stopped at ${result.lastAgent?.name}`)
    }
  }
  const timeOf = async (trimmed: boolean) => {
    const first = agentsChain(count, trimmed)
    // The default history grows with every hand-off (a full chain takes seconds): it warms
    // up on a short chain and is timed once.
    if (!trimmed) await runChain(agentsChain(Math.min(count, 50), false), Math.min(count, 50))
    return (
      await timePerOperation({
        operations: count,
        ...(trimmed ? {} : { minMs: 0, warmUp: false }),
        work: () => runChain(first, count),
      })
    ).microseconds
  }
  const trimmedUs = await timeOf(true)
  const defaultUs = await timeOf(false)
  return {
    value: Math.min(trimmedUs, defaultUs),
    text: `${formatNumber(trimmedUs)} (trimmed history) / ${formatNumber(defaultUs)} (default)`,
    details: { trimmedMicroseconds: trimmedUs, defaultMicroseconds: defaultUs },
  }
}
