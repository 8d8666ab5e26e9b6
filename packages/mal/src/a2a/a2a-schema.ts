import { z } from 'zod'

const Part = z
  .object({
    kind: z.string(),
    text: z.string().optional(),
    data: z.unknown().optional(),
  })
  .loose()

export const A2AMessage = z
  .object({ kind: z.literal('message'), role: z.string(), parts: z.array(Part) })
  .loose()

export const A2ATask = z
  .object({
    kind: z.literal('task'),
    id: z.string(),
    status: z.object({ state: z.string(), message: A2AMessage.optional() }).loose(),
    artifacts: z.array(z.object({ parts: z.array(Part) }).loose()).optional(),
  })
  .loose()
export type A2ATask = z.infer<typeof A2ATask>

export const JsonRpcResponse = z.object({
  jsonrpc: z.literal('2.0'),
  result: z.unknown().optional(),
  error: z
    .object({ code: z.number(), message: z.string(), data: z.unknown().optional() })
    .optional(),
})

/** The text of some parts: text parts as they are, data parts as JSON. */
export function partsText(parts: z.infer<typeof Part>[]): string {
  return parts
    .flatMap((part) => {
      if (part.kind === 'text' && part.text !== undefined) return [part.text]
      if (part.kind === 'data' && part.data !== undefined) return [JSON.stringify(part.data)]
      return []
    })
    .join('\n')
}
