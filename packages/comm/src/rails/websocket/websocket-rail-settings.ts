import { z } from 'zod'
import { PositiveWhole, wholeNumber } from '../../options/option-schemas'

/** What `createWebSocketRail` accepts; anything else is a ValidationError naming the option. */
export const WebSocketRailSettings = z.object({
  peerId: z.string().min(1),
  listen: z
    .object({
      port: wholeNumber(0).max(65_535, 'expected a port from 0 to 65535'),
      host: z.string().min(1).optional(),
    })
    .optional(),
  connect: z.array(z.string().regex(/^wss?:\/\/[^/]/, 'expected a ws:// or wss:// URL')).optional(),
  reconnect: z
    .object({ minDelayMs: PositiveWhole.optional(), maxDelayMs: PositiveWhole.optional() })
    .optional(),
  maxPending: PositiveWhole.optional(),
  dedupeWindow: PositiveWhole.optional(),
  heartbeatMs: PositiveWhole.optional(),
  peerTimeoutMs: PositiveWhole.optional(),
})
