import type { Tool, ToolSet } from 'ai'
import { z } from 'zod'
import { ValidationError } from '../errors/baton-error'
import { issuesOf } from '../schemas/parse'
import { ToolAlreadyRegisteredError, ToolNotAllowedError, UnknownToolError } from './tool-errors'
import { isToolListed, isToolPattern, matchesToolPattern } from './tool-patterns'
import type { ToolRegistry } from './types'

// Provider APIs accept tool names of this shape only (OpenAI: ^[a-zA-Z0-9_-]{1,64}$).
const ToolName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, "_" or "-"')

/**
 * A registry of AI SDK tools by name, from which each run binds the tools its agent's card
 * allows (optionally narrowed further).
 *
 * @example
 * const tools = createToolRegistry({ add: tool({ inputSchema: z.object({ a: z.number() }), execute: ({ a }) => a + 1 }) })
 * const bound = tools.bind(agent.tools, ['add']) // throws if the card does not list "add"
 */
export function createToolRegistry(initial: Record<string, Tool> = {}): ToolRegistry {
  const registry = new ToolRegistryImpl()
  for (const [name, definition] of Object.entries(initial)) registry.register(name, definition)
  return registry
}

class ToolRegistryImpl implements ToolRegistry {
  #tools = new Map<string, Tool>()

  register(name: string, definition: Tool): void {
    const check = ToolName.safeParse(name)
    if (!check.success) throw new ValidationError('tool name', issuesOf(check.error))
    if (this.#tools.has(name)) throw new ToolAlreadyRegisteredError(name)
    this.#tools.set(name, definition)
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name)
  }

  names(): string[] {
    return [...this.#tools.keys()]
  }

  bind(allowed: readonly string[], narrow?: readonly string[]): ToolSet {
    assertAllowed(allowed, narrow)
    const bound: ToolSet = {}
    for (const name of narrow ?? allowed) {
      if (isToolPattern(name)) {
        for (const [registered, definition] of this.#tools) {
          if (matchesToolPattern(name, registered)) bound[registered] = definition
        }
        continue
      }
      const definition = this.#tools.get(name)
      if (!definition) throw new UnknownToolError({ toolName: name, registered: this.names() })
      bound[name] = definition
    }
    return bound
  }
}

/**
 * Throws `ToolNotAllowedError` for the first name in `narrow` that `allowed` does not list
 * (an `allowed` entry ending in `*` lists every name it starts).
 *
 * @example
 * assertAllowed(['search'], ['search', 'shell']) // throws: "shell" is not allowed
 */
export function assertAllowed(allowed: readonly string[], narrow?: readonly string[]): void {
  for (const name of narrow ?? []) {
    if (!isToolListed(allowed, name)) throw new ToolNotAllowedError({ toolName: name, allowed })
  }
}
