import type { z } from 'zod'
import { ValidationError } from '../errors/baton-error'
import { unknownKeys } from './unknown-keys'

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
 * Each key of `input` no object of `schema` declares (see `unknownKeys`), as an issue
 * `is not a known field`, for a `ValidationError` of its own or beside the schema's.
 *
 * @example
 * unknownKeyIssues(AgentSwarm, { minTrustTeir: 'high' }) // [{ path: 'minTrustTeir', message: 'is not a known field' }]
 */
export function unknownKeyIssues(
  schema: z.ZodType,
  input: unknown,
): { path: string; message: string }[] {
  return unknownKeys(schema, input).map((path) => ({
    path: formatPath(path),
    message: 'is not a known field',
  }))
}

export type ParseOptions = {
  /**
   * `'refuse'`: a key no object of the schema declares, however deep, is an issue too
   * (`is not a known field`), where zod would drop it without a word. For what a person or a
   * client writes (a request body, a file): a misspelt key is a mistake to name, not to ignore.
   * Default `'strip'`, zod's own (for what another version may have written).
   */
  unknownKeys?: 'strip' | 'refuse'
}

/**
 * Parses `input` with `schema`, throwing a `ValidationError` that names every bad field.
 *
 * @example
 * const agent = parseWith(Agent, body, 'agent')
 * const swarm = parseWith(AgentSwarm, body, 'swarm', { unknownKeys: 'refuse' })
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
  options: ParseOptions = {},
): z.output<S> {
  const result = schema.safeParse(input)
  const unknown = options.unknownKeys === 'refuse' ? unknownKeyIssues(schema, input) : []
  if (!result.success) throw new ValidationError(what, [...issuesOf(result.error), ...unknown])
  if (unknown.length > 0) throw new ValidationError(what, unknown)
  return result.data
}
