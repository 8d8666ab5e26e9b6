import { readFile } from 'node:fs/promises'
import { ValidationError } from '@baton/core'
import type { McpSettings } from '@baton/core/mcp'

/**
 * Reads the server's MCP settings file (`BATON_MCP_CONFIG`): the `mcpServers` JSON of Claude
 * Desktop, Claude Code and Cursor. A file that cannot be read or does not parse names itself.
 *
 * @example
 * const settings = await loadMcpSettings('./mcp.json')
 */
export async function loadMcpSettings(file: string): Promise<McpSettings> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new ValidationError('BATON_MCP_CONFIG', [
      {
        path: file,
        message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      },
    ])
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new ValidationError('BATON_MCP_CONFIG', [
      { path: file, message: `is not JSON: ${(error as Error).message}` },
    ])
  }
  // Loaded here, not at start-up: a server without MCP settings never loads the MCP client.
  const { parseMcpSettings } = await import('@baton/core/mcp')
  try {
    return parseMcpSettings(json)
  } catch (error) {
    const issues = (error as ValidationError).issues ?? []
    throw new ValidationError(
      'BATON_MCP_CONFIG',
      issues.map((issue) => ({ path: `${file}: ${issue.path}`, message: issue.message })),
    )
  }
}
