import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { createToolRegistry, ValidationError } from '@baton/core'
import type { Tool, ToolSet } from 'ai'

/**
 * Loads an operator's module of AI SDK `tool()`s: its default export, or its `tools` export,
 * is an object of tools by name (`BATON_TOOLS_MODULE`).
 *
 * @example
 * const tools = await loadToolsModule('./my-tools.mjs') // { weather: tool({...}) }
 */
export async function loadToolsModule(file: string): Promise<ToolSet> {
  const url = pathToFileURL(path.resolve(file)).href
  let loaded: Record<string, unknown>
  try {
    loaded = (await import(url)) as Record<string, unknown>
  } catch (error) {
    throw new ValidationError(
      'BATON_TOOLS_MODULE',
      [{ path: file, message: `cannot be loaded: ${(error as Error).message}` }],
      { cause: error },
    )
  }
  const exported = (loaded.tools ?? loaded.default) as Record<string, unknown> | undefined
  if (!exported || typeof exported !== 'object') {
    throw new ValidationError('BATON_TOOLS_MODULE', [
      { path: file, message: 'must export an object of AI SDK tools (default or `tools`)' },
    ])
  }
  const tools: ToolSet = {}
  for (const [name, value] of Object.entries(exported)) {
    const candidate = value as Partial<Tool> | undefined
    if (!candidate || typeof candidate !== 'object' || !('inputSchema' in candidate)) {
      throw new ValidationError('BATON_TOOLS_MODULE', [
        {
          path: `${file}: ${name}`,
          message: 'is not an AI SDK tool (made with `tool()` from "ai")',
        },
      ])
    }
    if (name.startsWith('mcp__')) {
      throw new ValidationError('BATON_TOOLS_MODULE', [
        { path: `${file}: ${name}`, message: "names starting mcp__ are the MCP servers' tools" },
      ])
    }
    tools[name] = value as Tool
  }
  // Core's tool registry checks each name as the model APIs require it.
  try {
    createToolRegistry(tools)
  } catch (error) {
    const issues = (error as ValidationError).issues ?? []
    throw new ValidationError(
      'BATON_TOOLS_MODULE',
      issues.map((issue) => ({ path: file, message: issue.message })),
    )
  }
  return tools
}
