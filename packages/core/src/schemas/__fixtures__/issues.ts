import type { z } from 'zod'
import { ValidationError } from '../../errors/baton-error'
import { parseWith } from '../parse'

/** The issues `parseWith` reports for `input`; fails the test when the input parses. */
export function issuesFor(
  schema: z.ZodType,
  input: unknown,
  what = 'input',
): { path: string; message: string }[] {
  try {
    parseWith(schema, input, what)
  } catch (error) {
    if (error instanceof ValidationError) return error.issues
    throw error
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`)
}

/** Only the paths of those issues. */
export function pathsFor(schema: z.ZodType, input: unknown): string[] {
  return issuesFor(schema, input).map((issue) => issue.path)
}
