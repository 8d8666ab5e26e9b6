import { createHash } from 'node:crypto'

const MAX = 64

/**
 * The name a model sees for tool `tool` of server `server`: `mcp__<server>__<tool>`, with
 * every character the model APIs refuse replaced by `_` and, past 64 characters, shortened
 * with a hash so two long names stay distinct (`^[a-zA-Z0-9_-]{1,64}$`).
 *
 * @example
 * mcpToolName('files', 'read.file') // 'mcp__files__read_file'
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_')
  if (name.length <= MAX) return name
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8)
  return `${name.slice(0, MAX - 9)}_${hash}`
}

/** The prefix every tool of `server` has, which a card lists as `mcp__<server>__*`. */
export function mcpServerPrefix(server: string): string {
  return `mcp__${server}__`
}
