import { format } from 'node:util'
import type { FastifyBaseLogger } from 'fastify'

type ConsoleMethod = 'debug' | 'info' | 'log' | 'warn' | 'error'

const levels: Record<ConsoleMethod, 'debug' | 'info' | 'warn' | 'error'> = {
  debug: 'debug',
  info: 'info',
  log: 'info',
  warn: 'warn',
  error: 'error',
}

/**
 * Sends what libraries write with `console` to the server's logger, so that the log stays one
 * JSON line per event: the A2A SDK takes no logger, and warns and reports its errors with
 * `console` (a task another process ended, a reference task not found, a failed push). Each
 * line gets the level of its method (`log` is `info`) and `source: 'console'`; an `Error`
 * among the arguments becomes the line's `err` (its stack, for the logger's serializer), the
 * rest its `msg`. It changes the process's global console, so the server's entry point calls
 * it, once the logger is made; an app built inside another program leaves that program's
 * console alone. The returned function puts the console back.
 *
 * @example
 * const restore = routeConsoleToLogger(app.log)
 */
export function routeConsoleToLogger(log: FastifyBaseLogger): () => void {
  const saved = new Map<ConsoleMethod, (...args: unknown[]) => void>()
  for (const [method, level] of Object.entries(levels) as [ConsoleMethod, keyof typeof log][]) {
    saved.set(method, console[method])
    console[method] = (...args: unknown[]) => {
      const err = args.find((arg): arg is Error => arg instanceof Error)
      const text = format(...args.map((arg) => (err && arg === err ? err.message : arg)))
      const fields = err ? { source: 'console', err } : { source: 'console' }
      ;(log[level] as (fields: object, message: string) => void)(fields, text)
    }
  }
  return () => {
    for (const [method, original] of saved) console[method] = original
  }
}
