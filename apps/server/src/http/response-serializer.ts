import { isDeepStrictEqual } from 'node:util'
import type { FastifySerializerCompiler } from 'fastify'
import { $ZodType, safeParse } from 'zod/v4/core'

/** An answer that is not what the route's documented response schema says it is. */
export class ResponseShapeError extends Error {
  override readonly name = 'ResponseShapeError'
  constructor(
    readonly route: string,
    readonly status: string,
    readonly problems: string[],
  ) {
    super(
      `The ${status} answer of ${route} is not what the OpenAPI document says: ${problems.join('; ')}`,
    )
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** Where `documented` (the schema's parse of the answer) and `sent` first part: keys the schema does not declare. */
function undeclared(documented: unknown, sent: Json, at: string, found: string[]): void {
  if (found.length >= 5 || sent === null || typeof sent !== 'object') return
  if (Array.isArray(sent)) {
    const items = Array.isArray(documented) ? documented : []
    for (const [index, item] of sent.entries()) {
      undeclared(items[index], item, `${at}[${index}]`, found)
    }
    return
  }
  const kept = (documented ?? {}) as Record<string, unknown>
  for (const [key, value] of Object.entries(sent)) {
    const path = at ? `${at}.${key}` : key
    if (!(key in kept)) found.push(`${path} is not declared`)
    else undeclared(kept[key], value, path, found)
  }
}

/** What is wrong with `sent` against `schema`, as `path: message` lines (none when it matches). */
export function shapeProblems(schema: $ZodType, sent: Json): string[] {
  const result = safeParse(schema, sent)
  if (!result.success) {
    return result.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join('.') || '(the answer)'}: ${issue.message}`)
  }
  if (isDeepStrictEqual(result.data, sent)) return []
  const found: string[] = []
  undeclared(result.data, sent, '', found)
  return found.length > 0 ? found : ['the schema changes the answer (a default or a transform)']
}

/**
 * The serializer of every route's answers. A route's `response` schemas are what the OpenAPI
 * document says it answers; an answer is written as `JSON.stringify` writes it, whatever the
 * schema, so nothing is dropped, and no answer fails for its shape.
 *
 * With `check` (`BATON_CHECK_RESPONSES`, on in the test suite), every answer that has a schema
 * is first held against it, as a client made from the document would read it: an answer with
 * a field the schema does not declare, one it lacks, or one of another type is not sent; the
 * route fails with a `ResponseShapeError` naming each (a 500, logged). So the suite keeps the
 * document true to what the routes answer.
 *
 * @example
 * app.setSerializerCompiler(responseSerializer({ check: settings.checkResponses }))
 */
export function responseSerializer(options: {
  check: boolean
}): FastifySerializerCompiler<unknown> {
  return ({ schema, method, url, httpStatus }) => {
    if (!options.check) return (data) => JSON.stringify(data)
    if (!(schema instanceof $ZodType)) {
      throw new TypeError(
        `The ${httpStatus} response schema of ${method} ${url} is not a zod schema.`,
      )
    }
    const route = `${method} ${url}`
    const status = httpStatus ?? 'default'
    return (data) => {
      const text = JSON.stringify(data)
      if (text === undefined) return text
      const problems = shapeProblems(schema, JSON.parse(text) as Json)
      if (problems.length > 0) throw new ResponseShapeError(route, status, problems)
      return text
    }
  }
}
