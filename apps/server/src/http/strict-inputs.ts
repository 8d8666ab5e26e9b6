import { unknownKeys } from '@baton/core'
import type { FastifySchemaCompiler } from 'fastify'
import { validatorCompiler } from 'fastify-type-provider-zod'
import { z } from 'zod'

// Body schemas whose unknown keys are dropped, as zod drops them.
const lenient = new WeakSet<z.ZodType>()

/**
 * Marks a route's body schema as one whose unknown keys are dropped rather than refused (see
 * `strictInputCompiler`): for a body that may carry fields of a newer sender, e.g. a complete
 * envelope.
 *
 * @example
 * const MessageBody = keepsUnknownKeys(z.union([Envelope, SendInput]))
 */
export function keepsUnknownKeys<S extends z.ZodType>(schema: S): S {
  lenient.add(schema)
  return schema
}

/** The parts of a request whose unknown keys are refused. */
const strictParts = new Set(['body', 'querystring'])

/**
 * fastify-type-provider-zod's validator compiler, with every request body (at every depth)
 * and every declared query string strict: a key the schema does not declare (a misspelt
 * `budget`, a member's `wieght`, `?stauts=failed`) is a 400 `VALIDATION_FAILED` naming it
 * (`body: Unrecognized key: "budjet"`, `querystring: Unrecognized key: "stauts"`), beside the
 * schema's own issues, where zod would drop it without a word and the request would do
 * something other than what its caller meant (every run, not the failed ones). Records
 * (free-form maps) are not looked into; a body marked with `keepsUnknownKeys` is validated as
 * zod validates it. A route that declares no query string takes any (a cache-buster's `?v=2`);
 * params and headers are left as they are.
 *
 * @example
 * app.setValidatorCompiler(strictInputCompiler)
 */
export const strictInputCompiler: FastifySchemaCompiler<z.ZodType> = (route) => {
  const { schema } = route
  if (!strictParts.has(route.httpPart ?? '') || lenient.has(schema)) {
    return validatorCompiler(route)
  }
  const strict = z.unknown().transform((input, context) => {
    const result = schema.safeParse(input)
    type Raw = (typeof context.issues)[number]
    if (!result.success) {
      for (const issue of result.error.issues) context.issues.push({ ...issue, input } as Raw)
    }
    for (const path of unknownKeys(schema, input)) {
      const key = String(path.at(-1))
      context.issues.push({
        code: 'unrecognized_keys',
        keys: [key],
        path: path.slice(0, -1),
        message: `Unrecognized key: "${key}"`,
        input,
      } as Raw)
    }
    return result.success ? result.data : z.NEVER
  })
  return validatorCompiler({ ...route, schema: strict })
}
