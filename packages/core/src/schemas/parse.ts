import type { z } from 'zod'
import { ValidationError } from '../errors/baton-error'

/** Formats a zod issue path as `agents[1].role`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else out += out ? `.${String(key)}` : String(key)
  }
  return out
}

/** Turns a zod error into `{ path, message }` issues. */
export function issuesOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }))
}

/**
 * Parses `input` with `schema`, throwing a `ValidationError` that names every bad field.
 *
 * @example
 * const agent = parseWith(Agent, body, 'agent')
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
): z.output<S> {
  const result = schema.safeParse(input)
  if (!result.success) throw new ValidationError(what, issuesOf(result.error))
  return result.data
}
