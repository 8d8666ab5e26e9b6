import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import { NotFoundError } from '../http/http-errors'
import type { RouteMethods } from '../http/route-methods'
import { isApiPath } from './authenticate'

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
 * The playground's Content-Security-Policy: its own scripts only (it keeps development keys
 * in the browser's storage, so an injected script must not run), calls to its own origin
 * only, no framing. Styles may be inline: its editor and graph inject theirs at run time.
 */
export const playgroundContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/**
 * Serves the playground build at `/` (SPA fallback to `index.html` for unknown non-API GET
 * paths), or a short page on how to build it, each with the playground's CSP. API paths keep
 * their JSON 404s. The not-found handler is rate-limited like every route (a scan of unknown
 * paths is no cheaper than one of known ones).
 *
 * @example
 * await servePlayground(app, settings.playgroundDir, new RouteMethods(app))
 */
export async function servePlayground(
  app: FastifyInstance,
  dir: string | undefined,
  routeMethods: RouteMethods,
): Promise<void> {
  const root = path.resolve(dir ?? defaultDir)
  const built = existsSync(path.join(root, 'index.html'))
  if (built) {
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: ['index.html'],
      // This version of @fastify/static passes the fastify reply.
      setHeaders: (reply: { header(name: string, value: string): unknown }) =>
        reply.header('content-security-policy', playgroundContentSecurityPolicy),
    })
  } else {
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('content-security-policy', playgroundContentSecurityPolicy)
        .type('text/html')
        .send(notBuilt),
    )
  }
  app.setNotFoundHandler({ preHandler: app.rateLimit() }, async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? ''
    if (request.method === 'GET' && !isApiPath(pathname) && built) {
      return reply
        .header('content-security-policy', playgroundContentSecurityPolicy)
        .type('text/html')
        .sendFile('index.html')
    }
    throw (
      routeMethods.refusal(request.method, pathname, reply) ??
      new NotFoundError('route', `${request.method} ${pathname}`)
    )
  })
}
