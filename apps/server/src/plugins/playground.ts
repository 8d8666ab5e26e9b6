import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { NotFoundError } from '../http/http-errors'
import { isApiPath } from './require-token'

const defaultDir = path.join(
  serverPackageRoot(fileURLToPath(import.meta.url)),
  '../playground/dist',
)

// This module runs from src/plugins/ in development and from the bundled dist/ in production.
function serverPackageRoot(file: string): string {
  let directory = path.dirname(file)
  while (!existsSync(path.join(directory, 'package.json'))) {
    const parent = path.dirname(directory)
    if (parent === directory) return path.dirname(file)
    directory = parent
  }
  return directory
}

const notBuilt = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Baton</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto">
<h1>Baton server</h1>
<p>The server is running. The playground has not been built yet:</p>
<pre>pnpm --filter @baton/playground build</pre>
<p>then reload this page. Meanwhile: <a href="/docs">the HTTP API (OpenAPI)</a>,
<a href="/api/v1/agents">the agents</a>, <a href="/health">health</a>.</p>
</body></html>`

/**
 * Serves the playground build at `/` (SPA fallback to `index.html` for unknown non-API GET
 * paths), or a short page on how to build it. API paths keep their JSON 404s.
 *
 * @example
 * await servePlayground(app, settings.playgroundDir)
 */
export async function servePlayground(
  app: FastifyInstance,
  dir: string | undefined,
): Promise<void> {
  const root = path.resolve(dir ?? defaultDir)
  const built = existsSync(path.join(root, 'index.html'))
  if (built) {
    await app.register(fastifyStatic, { root, wildcard: false, index: ['index.html'] })
  } else {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html').send(notBuilt),
    )
  }
  app.setNotFoundHandler(async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? ''
    if (request.method === 'GET' && !isApiPath(pathname) && built) {
      return reply.type('text/html').sendFile('index.html')
    }
    throw new NotFoundError('route', `${request.method} ${pathname}`)
  })
}
