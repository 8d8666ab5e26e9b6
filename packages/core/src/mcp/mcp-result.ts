import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { McpToolError } from './mcp-errors'

type ContentPart = {
  type: string
  text?: string
  data?: string
  mimeType?: string
  uri?: string
  name?: string
  resource?: { uri: string; text?: string; blob?: string; mimeType?: string }
}

/** What a Baton agent's tool call returns for an MCP result. */
export type McpToolOutput = {
  /** The text parts, joined by blank lines (images and resources noted in words). */
  text: string
  /** The tool's `structuredContent`, when it sent one. */
  structured?: unknown
  /** Files written into the workspace for the images and blobs the tool returned. */
  files?: string[]
}

const extensions: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
}

let fileCounter = 0

/**
 * Maps an MCP `CallToolResult` to what the model reads: text, structured content, and images
 * saved as files where the run has a workspace. `isError: true` throws `McpToolError` with the
 * tool's own text, which the agent loop hands to the model as the call's error.
 *
 * @example
 * await toToolOutput({ content: [{ type: 'text', text: 'hi' }] }, { server: 'files', tool: 'read' })
 * // { text: 'hi' }
 */
export async function toToolOutput(
  result: { content?: unknown; structuredContent?: unknown; isError?: unknown },
  options: { server: string; tool: string; workspaceDir?: string },
): Promise<McpToolOutput> {
  const parts = Array.isArray(result.content) ? (result.content as ContentPart[]) : []
  const texts: string[] = []
  const files: string[] = []
  for (const part of parts) {
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text)
    else if ((part.type === 'image' || part.type === 'audio') && typeof part.data === 'string') {
      const saved = await saveBlob(part.data, part.mimeType, options)
      if (saved) {
        files.push(saved)
        texts.push(`[${part.type} saved to ${saved}]`)
      } else {
        texts.push(
          `[${part.type} ${part.mimeType ?? ''}, ${Math.floor((part.data.length * 3) / 4)} bytes]`,
        )
      }
    } else if (part.type === 'resource' && part.resource) {
      texts.push(part.resource.text ?? `[resource ${part.resource.uri}]`)
    } else if (part.type === 'resource_link') {
      texts.push(`[link ${part.name ?? ''} ${part.uri ?? ''}]`.replace(/\s+/g, ' '))
    }
  }
  const text = texts.join('\n\n')
  if (result.isError === true) {
    throw new McpToolError({
      server: options.server,
      tool: options.tool,
      message: text || `MCP tool "${options.tool}" reported an error.`,
    })
  }
  return {
    text,
    ...(result.structuredContent === undefined ? {} : { structured: result.structuredContent }),
    ...(files.length > 0 ? { files } : {}),
  }
}

async function saveBlob(
  data: string,
  mimeType: string | undefined,
  options: { tool: string; workspaceDir?: string },
): Promise<string | undefined> {
  if (!options.workspaceDir) return undefined
  fileCounter += 1
  const extension = extensions[mimeType ?? ''] ?? 'bin'
  const safeTool = options.tool.replace(/[^A-Za-z0-9_-]/g, '_')
  const name = `mcp-${safeTool}-${Date.now().toString(36)}-${fileCounter}.${extension}`
  await mkdir(options.workspaceDir, { recursive: true })
  await writeFile(path.join(options.workspaceDir, name), Buffer.from(data, 'base64'))
  return name
}
