/**
 * Whether a card's tool entry covers `name`: the same name, or a pattern ending in `*` that
 * `name` starts with (`mcp__files__*` covers every tool of the MCP server `files`).
 *
 * @example
 * matchesToolPattern('mcp__files__*', 'mcp__files__read_file') // true
 */
export function matchesToolPattern(pattern: string, name: string): boolean {
  if (!pattern.endsWith('*')) return pattern === name
  return name.startsWith(pattern.slice(0, -1))
}

/** Whether any of a card's entries covers `name`. */
export function isToolListed(listed: readonly string[], name: string): boolean {
  for (const entry of listed) if (matchesToolPattern(entry, name)) return true
  return false
}

/** Whether an entry is a pattern (`prefix*`) rather than one tool's name. */
export function isToolPattern(entry: string): boolean {
  return entry.endsWith('*')
}
