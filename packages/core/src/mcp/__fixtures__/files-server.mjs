// An MCP server written with the official SDK, for tests: `node files-server.mjs ROOT` speaks
// stdio; `node files-server.mjs ROOT --http` listens on 127.0.0.1 (a free port, printed as
// `listening <url>`) and speaks Streamable HTTP.
import { renameSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import path from 'node:path'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'

const root = path.resolve(process.argv[2] ?? '.')
const overHttp = process.argv.includes('--http')
// 1x1 transparent PNG.
const png =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='

function buildServer() {
  const server = new McpServer({ name: 'files', version: '1.0.0' })
  server.registerTool(
    'read_file',
    { description: 'Reads a text file under the root.', inputSchema: { path: z.string() } },
    async ({ path: file }) => {
      const full = path.resolve(root, file)
      if (!full.startsWith(root + path.sep)) {
        return { isError: true, content: [{ type: 'text', text: `outside the root: ${file}` }] }
      }
      try {
        return { content: [{ type: 'text', text: await readFile(full, 'utf8') }] }
      } catch (error) {
        return {
          isError: true,
          content: [{ type: 'text', text: `cannot read ${file}: ${error.code}` }],
        }
      }
    },
  )
  server.registerTool(
    'slow',
    { description: 'Answers after ms milliseconds.', inputSchema: { ms: z.number() } },
    async ({ ms }, extra) => {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, ms)
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer)
          // Tells the test the cancellation reached the server. Written whole, then renamed:
          // a test polling the file never reads it empty between its creation and its write.
          const marker = path.join(root, 'cancelled.txt')
          writeFileSync(`${marker}.${process.pid}.tmp`, String(ms))
          renameSync(`${marker}.${process.pid}.tmp`, marker)
          reject(new Error('cancelled'))
        })
      })
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] }
    },
  )
  server.registerTool(
    'stats',
    {
      description: 'Structured content.',
      inputSchema: { path: z.string() },
      outputSchema: { bytes: z.number(), lines: z.number() },
    },
    async ({ path: file }) => {
      const text = await readFile(path.resolve(root, file), 'utf8')
      const structuredContent = { bytes: Buffer.byteLength(text), lines: text.split('\n').length }
      return {
        content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
        structuredContent,
      }
    },
  )
  server.registerTool('picture', { description: 'A PNG.' }, async () => ({
    content: [{ type: 'image', data: png, mimeType: 'image/png' }],
  }))
  server.registerTool('pid', { description: 'The server process id.' }, async () => ({
    content: [{ type: 'text', text: String(process.pid) }],
  }))
  server.registerTool(
    'env',
    {
      description:
        'The value of an environment variable of the server, its directory, and (over HTTP) the request header of that name.',
      inputSchema: { name: z.string() },
    },
    async ({ name }, extra) => ({
      content: [
        {
          type: 'text',
          text: JSON.stringify({
            value: process.env[name] ?? null,
            cwd: process.cwd(),
            header: extra.requestInfo?.headers?.[name.toLowerCase()] ?? null,
          }),
        },
      ],
    }),
  )
  server.registerTool(
    'add_tool',
    {
      description: 'Registers a tool named name (tools/list_changed).',
      inputSchema: { name: z.string() },
    },
    async ({ name }) => {
      server.registerTool(name, { description: `Added at run time: ${name}` }, async () => ({
        content: [{ type: 'text', text: `${name} ran` }],
      }))
      return { content: [{ type: 'text', text: `added ${name}` }] }
    },
  )
  return server
}

if (overHttp) {
  const http = createServer(async (request, response) => {
    // Stateless: one server and transport per request, as the SDK's examples do.
    const server = buildServer()
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    response.on('close', () => {
      transport.close()
      server.close()
    })
    await server.connect(transport)
    let body = ''
    for await (const chunk of request) body += chunk
    await transport.handleRequest(request, response, body ? JSON.parse(body) : undefined)
  })
  http.listen(0, '127.0.0.1', () => {
    process.stdout.write(`listening http://127.0.0.1:${http.address().port}/mcp\n`)
  })
} else {
  await buildServer().connect(new StdioServerTransport())
}
