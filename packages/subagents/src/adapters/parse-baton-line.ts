import { AdapterEvent } from './types'

/**
 * Parses one line of Baton's JSON-lines adapter format (see `AdapterEvent`). Lines that are not
 * JSON, or not one of its events, are ignored.
 *
 * @example
 * parseBatonLine('{"type":"result","text":"done","costUsd":0.01}')
 * // { type: 'result', text: 'done', costUsd: 0.01 }
 */
export function parseBatonLine(line: string): AdapterEvent | undefined {
  const json = parseJson(line)
  if (json === undefined) return undefined
  const result = AdapterEvent.safeParse(json)
  return result.success ? result.data : undefined
}

/** `JSON.parse`, or `undefined` for a line that is not a JSON object. */
export function parseJson(line: string): Record<string, unknown> | undefined {
  const trimmed = line.trim()
  if (!trimmed.startsWith('{')) return undefined
  try {
    const value: unknown = JSON.parse(trimmed)
    return typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}
