import { connect, type Socket } from 'node:net'

export type RawResponse = {
  status: number
  headers: Record<string, string>
  body: string
}

export type RawConnection = {
  socket: Socket
  /** Writes `text` as it is (one request, or several pipelined). */
  write(text: string): void
  /** The next complete response on this connection (its body by `content-length`). */
  next(options?: { timeoutMs?: number }): Promise<RawResponse>
  /** Resolves when the server has closed the connection, with how (`end` or an error code). */
  closed: Promise<string>
  destroy(): void
}

/**
 * One TCP connection to an HTTP/1.1 server, read and written by hand: keep-alive and pipelining
 * exactly as the test writes them (fetch and undici would hide both).
 *
 * @example
 * const connection = await openRawConnection(server.url)
 * connection.write(rawRequest('GET', '/health'))
 * const response = await connection.next()
 */
export async function openRawConnection(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url)
  const socket = connect({ host: hostname, port: Number(port) })
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  let buffer = Buffer.alloc(0)
  let wake: (() => void) | undefined
  let ended: string | undefined
  const closed = new Promise<string>((resolve) => {
    socket.on('error', (error: NodeJS.ErrnoException) => {
      ended ??= error.code ?? error.message
      resolve(ended)
      wake?.()
    })
    socket.on('close', () => {
      ended ??= 'end'
      resolve(ended)
      wake?.()
    })
  })
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk])
    wake?.()
  })
  const parse = (): RawResponse | undefined => {
    const head = buffer.indexOf('\r\n\r\n')
    if (head === -1) return undefined
    const [statusLine = '', ...lines] = buffer.subarray(0, head).toString('latin1').split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    const length = Number(headers['content-length'] ?? 0)
    if (buffer.length < head + 4 + length) return undefined
    const body = buffer.subarray(head + 4, head + 4 + length).toString('utf8')
    buffer = buffer.subarray(head + 4 + length)
    return { status: Number(statusLine.split(' ')[1]), headers, body }
  }
  return {
    socket,
    write: (text) => socket.write(text),
    async next({ timeoutMs = 30_000 } = {}) {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const response = parse()
        if (response) return response
        if (ended) throw new Error(`the connection closed (${ended}) before a response`)
        if (Date.now() > deadline) throw new Error('no response within the timeout')
        await new Promise<void>((resolve) => {
          wake = resolve
          setTimeout(resolve, 100)
        })
      }
    },
    closed,
    destroy: () => socket.destroy(),
  }
}

/**
 * The text of one HTTP/1.1 request on a kept-alive connection (JSON body when given).
 *
 * @example
 * connection.write(rawRequest('POST', '/api/v1/runs', { plan }))
 */
export function rawRequest(method: string, path: string, body?: unknown): string {
  const text = body === undefined ? '' : JSON.stringify(body)
  const headers = [
    `${method} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: keep-alive',
    ...(body === undefined
      ? []
      : ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(text)}`]),
  ]
  return `${headers.join('\r\n')}\r\n\r\n${text}`
}
