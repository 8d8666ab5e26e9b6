/** One server-sent event: its `event:` name (default `message`), `id:` and joined `data:`. */
export type ServerSentEvent = { event: string; data: string; id?: string }

/**
 * Reads a `text/event-stream` body event by event (comments and `retry:` are skipped).
 *
 * @example
 * for await (const message of readServerSentEvents(response.body!)) console.log(message.data)
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  let current: { event?: string; data: string[]; id?: string } = { data: [] }
  const reader = body.getReader()
  try {
    while (true) {
      const { done, value } = await reader.read()
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true })
      const lines = buffer.split(/\r\n|\r|\n/)
      buffer = done ? '' : lines.pop()!
      for (const line of lines) {
        if (line === '') {
          if (current.data.length > 0) {
            yield {
              event: current.event ?? 'message',
              data: current.data.join('\n'),
              ...(current.id === undefined ? {} : { id: current.id }),
            }
          }
          current = { data: [] }
          continue
        }
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'data') current.data.push(value)
        else if (field === 'event') current.event = value
        else if (field === 'id') current.id = value
      }
      if (done) return
    }
  } finally {
    reader.releaseLock()
  }
}
