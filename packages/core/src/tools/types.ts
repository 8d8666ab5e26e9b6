import type { Tool, ToolSet } from 'ai'

export interface ToolRegistry {
  register(name: string, tool: Tool): void
  get(name: string): Tool | undefined
  names(): string[]
  /**
   * The tools an agent may call in one run: the card's list, narrowed by `narrow` if given.
   * A name in `narrow` that the card does not list, or that is not registered, throws.
   */
  bind(allowed: readonly string[], narrow?: readonly string[]): ToolSet
}
