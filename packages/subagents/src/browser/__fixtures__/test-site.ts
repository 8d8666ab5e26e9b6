import http from 'node:http'
import type { AddressInfo } from 'node:net'

/** A small site on 127.0.0.1 for the browser workspace tests; it records every request. */
export type TestSite = {
  origin: string
  port: number
  /** Path and cookie header of every request, in order. */
  requests: { path: string; cookie: string | undefined }[]
  /** How many requests to /slow were closed by the client before an answer. */
  readonly slowClosed: number
  close(): Promise<void>
}

const COUNTER = `<!doctype html><html><head><title>Counter</title></head><body>
<h1>Counter</h1>
<p id="count">Count: 0</p>
<button onclick="document.getElementById('count').textContent = 'Count: ' + (++window.clicks)">Add one</button>
<label>Name <input id="name" /></label>
<p id="greeting"></p>
<script>
window.clicks = 0
document.getElementById('name').addEventListener('keydown', (event) => {
  if (event.key === 'Enter') document.getElementById('greeting').textContent = 'Hello, ' + event.target.value
})
</script>
</body></html>`

/**
 * Starts the test site. `elsewhere` is another origin the pages try to reach (a redirect, a
 * script's fetch), to show they cannot.
 *
 * @example
 * const site = await startTestSite({ elsewhere: other.origin })
 */
export async function startTestSite(options: { elsewhere?: string } = {}): Promise<TestSite> {
  const requests: TestSite['requests'] = []
  let slowClosed = 0
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://site')
    requests.push({ path: url.pathname + url.search, cookie: request.headers.cookie })
    const html = (body: string) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(body)
    }
    switch (url.pathname) {
      case '/':
        return html(COUNTER)
      case '/cookie': {
        const value = url.searchParams.get('set') ?? ''
        response.setHeader('set-cookie', `who=${encodeURIComponent(value)}; Path=/`)
        return html(`<title>Cookie</title><p>Set who=${value}</p>`)
      }
      case '/whoami':
        return html(`<title>Who</title><p>Cookie: ${request.headers.cookie ?? 'none'}</p>`)
      case '/redirect-out':
        response.writeHead(302, { location: `${options.elsewhere}/stolen` })
        return response.end()
      case '/redirect-in':
        response.writeHead(302, { location: '/whoami' })
        return response.end()
      case '/script-out':
        return html(
          `<title>Script</title><p id="out">pending</p><script>
fetch(${JSON.stringify(`${options.elsewhere}/fetched`)}).then(() => 'reached', () => 'blocked')
  .then((what) => { document.getElementById('out').textContent = what })
location.href = ${JSON.stringify(`${options.elsewhere}/navigated`)}
</script>`,
        )
      case '/download':
        response.writeHead(200, {
          'content-type': 'application/octet-stream',
          'content-disposition': 'attachment; filename="../../report.csv"',
        })
        return response.end('a,b\n1,2\n')
      case '/download-page':
        return html(`<title>Files</title><a href="/download">Get the report</a>`)
      case '/slow':
        // Never answers: a call that only a timeout or a cancel ends.
        request.socket.once('close', () => {
          slowClosed += 1
        })
        return
      default:
        response.writeHead(404)
        response.end('not found')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    get slowClosed() {
      return slowClosed
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
