import { z } from 'zod'
import { BatonError } from '../errors/baton-error'
import type { Agent } from './agent'
import { formatPath } from './parse'

/** A message to an agent that does not match the input schema of its card. */
export class AgentInputInvalidError extends BatonError {
  override name = 'AgentInputInvalidError'
  readonly issues: { path: string; message: string }[]
  constructor(options: { wallet: string; issues: { path: string; message: string }[] }) {
    const listed = options.issues
      .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
      .join('; ')
    super(
      'AGENT_INPUT_INVALID',
      `The input does not match the input schema of agent ${options.wallet}: ${listed}`,
      { details: { ...options } },
    )
    this.issues = options.issues
  }
}

/**
 * Checks a message to an agent against its card's `inputSchema` (JSON Schema), before
 * anything is spent: the text is read as JSON when it is JSON, else as a string. Returns the
 * value checked; an agent without an input schema takes any text.
 *
 * @example
 * checkAgentInput(agent, '{"orderId": 1182}') // { orderId: 1182 }, or AgentInputInvalidError
 */
export function checkAgentInput(agent: Agent, text: string): unknown {
  const schema = agent.agentCard.inputSchema
  if (!schema) return text
  let value: unknown = text
  try {
    value = JSON.parse(text)
  } catch {
    // Not JSON: the schema sees the text itself (a `{ type: 'string' }` schema, say).
  }
  const checked = z.fromJSONSchema(schema as never).safeParse(value)
  if (checked.success) return checked.data
  throw new AgentInputInvalidError({
    wallet: agent.wallet,
    issues: checked.error.issues.map((issue) => ({
      path: formatPath(issue.path),
      message: issue.message,
    })),
  })
}
