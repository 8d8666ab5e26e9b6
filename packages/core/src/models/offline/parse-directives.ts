import { OfflineModelError } from '../model-errors'

export type ToolDirective = { toolName: string; input: Record<string, unknown> }

/** What the offline model was told to do by `[[...]]` directives. */
export type Directives = {
  tools: ToolDirective[]
  answer?: string
  json?: unknown
  sleepMs?: number
  /** A streamed reply waits this long before each chunk it sends (`[[chunk-delay:MS]]`). */
  chunkDelayMs?: number
  fail?: string
}

const OPENING = /\[\[(tool|answer|json|sleep|chunk-delay|fail):/g

/**
 * Reads the directives of several texts, in order. Tool directives accumulate; for the others
 * the last one wins, so a later message can override an earlier one.
 *
 * @example
 * parseDirectives(['[[tool:add {"a":1,"b":2}]] then [[answer:done]]'])
 * // { tools: [{ toolName: 'add', input: { a: 1, b: 2 } }], answer: 'done' }
 */
export function parseDirectives(texts: readonly string[]): Directives {
  const directives: Directives = { tools: [] }
  for (const text of texts) {
    for (const match of text.matchAll(OPENING)) {
      const kind = match[1]!
      const start = match.index + match[0].length
      if (kind === 'tool') directives.tools.push(readTool(text, start))
      else if (kind === 'json') directives.json = readJson(text, start, 'json')
      else {
        const end = text.indexOf(']]', start)
        if (end === -1) throw malformed(kind, text.slice(match.index))
        const body = text.slice(start, end)
        if (kind === 'answer') directives.answer = body
        else if (kind === 'fail') directives.fail = body.trim()
        else if (kind === 'chunk-delay') directives.chunkDelayMs = readSleep(body, kind)
        else directives.sleepMs = readSleep(body)
      }
    }
  }
  return directives
}

/** The text with every directive removed, for restating the task. */
export function stripDirectives(text: string): string {
  return text.replace(/\[\[(tool|answer|json|sleep|chunk-delay|fail):[\s\S]*?\]\](?!\])/g, ' ')
}

function readTool(text: string, start: number): ToolDirective {
  const name = /^[A-Za-z0-9_.-]+/.exec(text.slice(start))?.[0]
  if (!name) throw malformed('tool', text.slice(start - 7, start + 40))
  const rest = start + name.length
  if (text.slice(rest).trimStart().startsWith(']]')) return { toolName: name, input: {} }
  const input = readJson(text, rest, 'tool')
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new OfflineModelError(
      `Offline directive [[tool:${name} ...]] needs a JSON object of arguments.`,
      { directive: 'tool' },
    )
  }
  return { toolName: name, input: input as Record<string, unknown> }
}

// JSON may itself contain "]]", so try each closing bracket until the text between parses.
function readJson(text: string, start: number, kind: string): unknown {
  let end = text.indexOf(']]', start)
  while (end !== -1) {
    try {
      return JSON.parse(text.slice(start, end))
    } catch {
      end = text.indexOf(']]', end + 1)
    }
  }
  throw malformed(kind, text.slice(start, start + 60))
}

function readSleep(body: string, kind = 'sleep'): number {
  const ms = Number(body.trim())
  if (!Number.isFinite(ms) || ms < 0) {
    throw new OfflineModelError(
      `Offline directive [[${kind}:${body}]] needs a number of milliseconds ≥ 0.`,
      { directive: kind },
    )
  }
  return ms
}

function malformed(kind: string, excerpt: string): OfflineModelError {
  return new OfflineModelError(
    `Malformed offline directive [[${kind}:...]] near "${excerpt}": expected ${
      kind === 'tool' ? '[[tool:NAME {"json":"args"}]]' : `[[${kind}:VALUE]]`
    }.`,
    { directive: kind },
  )
}
