import { z } from 'zod'

/** What peers say to each other on a WebSocket rail, one JSON frame per message. */
export const Frame = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('hello'), peerId: z.string().min(1) }),
  // The envelope itself is validated by the bus that receives it.
  z.object({ kind: z.literal('envelope'), envelope: z.looseObject({ id: z.string().min(1) }) }),
  z.object({ kind: z.literal('ack'), ids: z.array(z.string()) }),
])
export type Frame = z.output<typeof Frame>

/**
 * Reads one frame; undefined when it is not JSON or not a frame this rail knows.
 *
 * @example
 * decodeFrame('{"kind":"ack","ids":["msg_1"]}') // { kind: 'ack', ids: ['msg_1'] }
 */
export function decodeFrame(data: string): Frame | undefined {
  try {
    const result = Frame.safeParse(JSON.parse(data))
    return result.success ? result.data : undefined
  } catch {
    return undefined
  }
}
