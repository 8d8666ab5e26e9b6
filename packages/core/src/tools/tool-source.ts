/** Where a tool comes from, when it is another system's (an MCP server's tool). */
export type ToolSource = {
  /** The server that runs it (the MCP server's name in the settings). */
  server: string
  /** The tool's own name on that server (models see it under another, e.g. `mcp__files__read_file`). */
  tool: string
}

// A registered symbol, so a copy of the package loaded twice reads what the other wrote; an
// enumerable own property, so a tool copied with a spread (`{ ...tool, execute }`, as wrappers
// that count or time calls do) keeps it.
const sourceKey = Symbol.for('baton.tool-source')

/**
 * Marks a tool with the server and name it comes from; the agent loop reports them with each
 * call (`tool-call` / `tool-result`). Returns the same tool.
 *
 * @example
 * const readFile = withToolSource(tool({ ... }), { server: 'files', tool: 'read_file' })
 */
export function withToolSource<T extends object>(tool: T, source: ToolSource): T {
  Object.defineProperty(tool, sourceKey, {
    value: Object.freeze({ ...source }),
    enumerable: true,
    configurable: true,
  })
  return tool
}

/**
 * The server and name a tool was marked with (`withToolSource`), if any.
 *
 * @example
 * toolSourceOf(tools.mcp__files__read_file) // { server: 'files', tool: 'read_file' }
 */
export function toolSourceOf(tool: unknown): ToolSource | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined
  return (tool as { [sourceKey]?: ToolSource })[sourceKey]
}
