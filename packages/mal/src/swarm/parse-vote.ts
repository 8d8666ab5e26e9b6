import { z } from 'zod'

const Vote = z.object({ proposal: z.number().int().nonnegative() })

/** The JSON schema a member's vote is asked in. */
export const voteJsonSchema = {
  type: 'object',
  properties: { proposal: { type: 'integer', minimum: 0 } },
  required: ['proposal'],
  additionalProperties: false,
} as const

/**
 * Reads a vote from a member's answer: a `{ "proposal": n }` object (alone or inside other
 * text, e.g. a fenced block), or `proposal: n` written out. Anything else, or an index with
 * no such proposal, is an abstention (`undefined`): junk must never count as a vote.
 *
 * @example
 * parseVote('I back {"proposal": 1}', 3) // 1
 * parseVote('no idea', 3) // undefined
 */
export function parseVote(text: string, proposals: number): number | undefined {
  const index = fromJson(text) ?? fromWords(text)
  return index !== undefined && index < proposals ? index : undefined
}

function fromJson(text: string): number | undefined {
  for (const match of text.matchAll(/\{[^{}]*\}/g)) {
    try {
      const parsed = Vote.safeParse(JSON.parse(match[0]))
      if (parsed.success) return parsed.data.proposal
    } catch {
      // Not JSON; try the next braces.
    }
  }
  return undefined
}

function fromWords(text: string): number | undefined {
  const match = /\bproposal["']?\s*[:=#]?\s*(\d+)\b(?!\.\d)/i.exec(text)
  return match ? Number(match[1]) : undefined
}
