import { BatonError } from '../errors/baton-error'

/** A run asked for a tool the agent's card does not list. */
export class ToolNotAllowedError extends BatonError {
  override name = 'ToolNotAllowedError'
  readonly toolName: string
  constructor(options: { toolName: string; allowed: readonly string[] }) {
    const { toolName, allowed } = options
    super(
      'TOOL_NOT_ALLOWED',
      `Tool "${toolName}" is not allowed for this agent; its card lists ${
        allowed.length ? allowed.map((name) => `"${name}"`).join(', ') : 'no tools'
      }.`,
      { details: { toolName, allowed: [...allowed] } },
    )
    this.toolName = toolName
  }
}

/** A tool name that nothing registered. */
export class UnknownToolError extends BatonError {
  override name = 'UnknownToolError'
  readonly toolName: string
  constructor(options: { toolName: string; registered: readonly string[] }) {
    const { toolName, registered } = options
    super(
      'UNKNOWN_TOOL',
      `Tool "${toolName}" is not registered. Registered tools: ${
        registered.length ? registered.join(', ') : 'none'
      }.`,
      { details: { toolName, registered: [...registered] } },
    )
    this.toolName = toolName
  }
}

/** Registering a second tool under a name that is taken. */
export class ToolAlreadyRegisteredError extends BatonError {
  override name = 'ToolAlreadyRegisteredError'
  constructor(toolName: string) {
    super('TOOL_ALREADY_REGISTERED', `A tool named "${toolName}" is already registered.`, {
      details: { toolName },
    })
  }
}
