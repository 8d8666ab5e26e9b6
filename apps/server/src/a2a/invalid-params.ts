/** How deep a request's params may nest (objects and arrays) below `params`. */
export const MAX_PARAMS_DEPTH = 32

/** What is wrong with a request's params, and the field it is wrong in. */
export type InvalidParams = { field: string; message: string }

type Dialect = 'v1.0' | 'v0.3'

const messageMethods = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'message/send',
  'message/stream',
])
const taskMethods = new Set(['GetTask', 'tasks/get'])
const roles: Record<Dialect, ReadonlySet<unknown>> = {
  'v1.0': new Set(['ROLE_USER', 'ROLE_AGENT', 1, 2]),
  'v0.3': new Set(['user', 'agent']),
}
// RFC 3339 `date-time`: a full date, a full time, and an offset.
const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/

/**
 * What the SDK's request handler does not check in a request's params (it validates little
 * beyond `messageId`), so that a bad request is refused with -32602 naming its field before
 * anything runs or is stored: params nested deeper than {@link MAX_PARAMS_DEPTH}; a message's
 * role, parts and metadata; a `historyLength` below 0; a `statusTimestampAfter` that is not
 * an RFC 3339 timestamp. Undefined when the params are fine.
 *
 * @example
 * invalidParams('SendMessage', { message: { messageId: 'm', parts: [] } }, 'v1.0')
 * // { field: 'params.message.role', message: 'params.message.role is required: ROLE_USER or ROLE_AGENT.' }
 */
export function invalidParams(
  method: string,
  params: Record<string, unknown> | undefined,
  dialect: Dialect,
): InvalidParams | undefined {
  if (params === undefined) return undefined
  const tooDeep = deeperThan(params, MAX_PARAMS_DEPTH)
  if (tooDeep) {
    return {
      field: tooDeep,
      message: `${tooDeep} is nested more than ${MAX_PARAMS_DEPTH} levels deep.`,
    }
  }
  if (messageMethods.has(method)) {
    return (
      invalidMessage(params.message, dialect) ??
      invalidHistoryLength(record(params.configuration), 'params.configuration')
    )
  }
  if (taskMethods.has(method)) return invalidHistoryLength(params, 'params')
  if (method === 'ListTasks') {
    return invalidHistoryLength(params, 'params') ?? invalidTimestamp(params)
  }
  return undefined
}

function invalidMessage(message: unknown, dialect: Dialect): InvalidParams | undefined {
  const at = 'params.message'
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { field: at, message: `${at} is required: an object.` }
  }
  const fields = message as Record<string, unknown>
  const roleNames = dialect === 'v1.0' ? 'ROLE_USER or ROLE_AGENT' : '"user" or "agent"'
  if (fields.role === undefined) {
    return { field: `${at}.role`, message: `${at}.role is required: ${roleNames}.` }
  }
  if (!roles[dialect].has(fields.role)) {
    return {
      field: `${at}.role`,
      message: `${at}.role ${JSON.stringify(fields.role)} is not a role: ${roleNames}.`,
    }
  }
  if (!Array.isArray(fields.parts) || fields.parts.length === 0) {
    return { field: `${at}.parts`, message: `${at}.parts must be a list of at least one part.` }
  }
  for (const [index, part] of fields.parts.entries()) {
    const problem =
      dialect === 'v1.0'
        ? invalidPart(part, `${at}.parts[${index}]`)
        : invalidLegacyPart(part, `${at}.parts[${index}]`)
    if (problem) return problem
  }
  if (fields.metadata !== undefined && record(fields.metadata) === undefined) {
    return { field: `${at}.metadata`, message: `${at}.metadata must be an object.` }
  }
  return undefined
}

/** A v1.0 part: exactly one of `text`, `raw` (base64), `url` (strings) or `data`. */
function invalidPart(part: unknown, at: string): InvalidParams | undefined {
  const fields = record(part)
  if (!fields) return { field: at, message: `${at} must be an object.` }
  const contents = ['text', 'raw', 'url', 'data'].filter((name) => fields[name] !== undefined)
  if (contents.length !== 1) {
    return { field: at, message: `${at} must have exactly one of text, raw, url or data.` }
  }
  const [content] = contents as [string]
  if (content !== 'data' && typeof fields[content] !== 'string') {
    return { field: `${at}.${content}`, message: `${at}.${content} must be a string.` }
  }
  return undefined
}

/** A v0.3 part: `kind` text (with `text`), file (with `file`) or data (with `data`). */
function invalidLegacyPart(part: unknown, at: string): InvalidParams | undefined {
  const fields = record(part)
  if (!fields) return { field: at, message: `${at} must be an object.` }
  if (fields.kind === 'text') {
    return typeof fields.text === 'string'
      ? undefined
      : { field: `${at}.text`, message: `${at}.text must be a string.` }
  }
  if (fields.kind === 'file' || fields.kind === 'data') {
    return record(fields[fields.kind])
      ? undefined
      : { field: `${at}.${fields.kind}`, message: `${at}.${fields.kind} must be an object.` }
  }
  return { field: `${at}.kind`, message: `${at}.kind must be "text", "file" or "data".` }
}

function invalidHistoryLength(
  fields: Record<string, unknown> | undefined,
  at: string,
): InvalidParams | undefined {
  const value = fields?.historyLength ?? fields?.history_length
  if (value === undefined || value === null) return undefined
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return undefined
  return {
    field: `${at}.historyLength`,
    message: `${at}.historyLength must be a whole number, 0 or more.`,
  }
}

function invalidTimestamp(params: Record<string, unknown>): InvalidParams | undefined {
  const value = params.statusTimestampAfter ?? params.status_timestamp_after
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string' && isRfc3339(value)) return undefined
  return {
    field: 'params.statusTimestampAfter',
    message: `params.statusTimestampAfter ${JSON.stringify(value)} is not an RFC 3339 timestamp (such as 2026-01-05T10:00:00Z).`,
  }
}

function isRfc3339(text: string): boolean {
  const parts = rfc3339.exec(text)
  if (!parts) return false
  const [, year, month, day, hour, minute, second] = parts.map(Number) as number[]
  const date = new Date(Date.UTC(year!, month! - 1, day!))
  return (
    date.getUTCMonth() === month! - 1 &&
    date.getUTCDate() === day &&
    hour! < 24 &&
    minute! < 60 &&
    second! < 61 &&
    !Number.isNaN(Date.parse(text))
  )
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/**
 * The field (`params.message.metadata`) under which `value` nests deeper than `limit`, or
 * undefined. Walked without recursion, so no depth a request can send overflows the stack.
 */
function deeperThan(value: Record<string, unknown>, limit: number): string | undefined {
  const stack: { value: unknown; path: string[]; depth: number }[] = [{ value, path: [], depth: 0 }]
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue
    if (next.depth > limit) return fieldOf(next.path)
    const entries = Array.isArray(next.value)
      ? next.value.map((item, index) => [`[${index}]`, item] as const)
      : Object.entries(next.value)
    for (const [key, item] of entries) {
      if (typeof item === 'object' && item !== null) {
        stack.push({ value: item, path: [...next.path, key], depth: next.depth + 1 })
      }
    }
  }
  return undefined
}

/** Free-form fields of the protocol: whatever nests below them is theirs. */
const freeForm = new Set(['metadata', 'data'])

/**
 * The protocol's field a path lies in: up to the first free-form one
 * (`params.message.metadata`, `params.message.parts[0].data`), else its first three names.
 */
function fieldOf(path: readonly string[]): string {
  let named = 0
  let field = 'params'
  for (const key of path) {
    const index = key.startsWith('[')
    field += index ? key : `.${key}`
    if (index) continue
    named += 1
    if (freeForm.has(key) || named === 3) break
  }
  return field
}
