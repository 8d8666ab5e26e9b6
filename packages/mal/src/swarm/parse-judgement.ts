import { z } from 'zod'

const Judgement = z.object({
  winner: z.number().int().nonnegative(),
  reasons: z.string().min(1),
})

/** The JSON schema a judge's verdict is asked in. */
export const judgementJsonSchema = {
  type: 'object',
  properties: {
    winner: { type: 'integer', minimum: 0 },
    reasons: { type: 'string', minLength: 1 },
  },
  required: ['winner', 'reasons'],
  additionalProperties: false,
} as const

/**
 * Reads a judge's structured verdict `{ "winner": n, "reasons": "..." }` (alone or inside
 * other text). Anything else, or a winner with no such answer, is no verdict (`undefined`).
 *
 * @example
 * parseJudgement('{"winner": 1, "reasons": "cites the logs"}', 3) // { winner: 1, reasons: 'cites the logs' }
 */
export function parseJudgement(
  text: string,
  answers: number,
): { winner: number; reasons: string } | undefined {
  for (const match of text.matchAll(/\{[^{}]*\}/g)) {
    try {
      const parsed = Judgement.safeParse(JSON.parse(match[0]))
      if (parsed.success && parsed.data.winner < answers) return parsed.data
    } catch {
      // Not JSON; try the next braces.
    }
  }
  return undefined
}
