import { z } from 'zod'

const Verdict = z.object({ approved: z.boolean(), critique: z.string().optional() })

/**
 * Reads a critic's review. It approves only with `{"approved": true}` or an answer whose
 * first word is APPROVED (or APPROVE / LGTM); anything else is a critique. The rule is
 * strict on purpose: an answer that merely mentions approval must not end the loop.
 *
 * @example
 * parseVerdict('APPROVED. Ship it.') // { approved: true, critique: '' }
 * parseVerdict('Too vague; name the owner.') // { approved: false, critique: 'Too vague; name the owner.' }
 */
export function parseVerdict(text: string): { approved: boolean; critique: string } {
  const trimmed = text.trim()
  try {
    const parsed = Verdict.safeParse(JSON.parse(trimmed))
    if (parsed.success) {
      return { approved: parsed.data.approved, critique: parsed.data.critique ?? '' }
    }
  } catch {
    // Plain text; read the first word.
  }
  const approved = /^[\s*_`#>"']*(approved?|lgtm)\b/i.test(trimmed)
  return { approved, critique: approved ? '' : trimmed }
}
