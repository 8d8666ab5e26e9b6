export type SseEvent = { id?: string; event?: string; data: string }

/**
 * Reads server-sent events from a fetch response body, yielding each complete event (lines
 * split as a browser's EventSource splits them).
 *
 * @example
 * for await (const event of readSse(response.body!)) console.log(event.event)
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  const reader = body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      // CR LF, CR and LF all end a line (the event-stream grammar), as in browsers.
      buffer += decoder.decode(value, { stream: true })
      buffer = buffer.replace(/\r\n?/g, '\n')
      let boundary = buffer.indexOf('\n\n')
      while (boundary !== -1) {
        const block = buffer.slice(0, boundary)
        buffer = buffer.slice(boundary + 2)
        boundary = buffer.indexOf('\n\n')
        const event: SseEvent = { data: '' }
        let hasData = false
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue
          const [field, ...rest] = line.split(':')
          const text = rest.join(':').replace(/^ /, '')
          if (field === 'id') event.id = text
          else if (field === 'event') event.event = text
          else if (field === 'data') {
            event.data += (hasData ? '\n' : '') + text
            hasData = true
          }
        }
        if (hasData) yield event
      }
    }
  } finally {
    reader.releaseLock()
  }
}
