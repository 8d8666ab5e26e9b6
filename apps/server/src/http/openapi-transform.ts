import { jsonSchemaTransform } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ErrorResponse } from '../routes/schemas'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route refuses in its protocol's own shape (A2A's JSON-RPC errors), not Baton's. */
    ownErrorShape?: boolean
  }
}

/** What every operation of the document answers when it refuses or fails. */
const errorResponse = {
  description:
    'A refusal or a failure, in the one error shape of every route: the status comes from `error.code` (docs/http-api.md lists them).',
  ...z.toJSONSchema(ErrorResponse, { target: 'openapi-3.0' }),
}

/**
 * The OpenAPI document's transform: the route schemas as fastify-type-provider-zod makes
 * them, and on every operation the error shape as its `default` response, so a client made
 * from the document knows what a 4xx or 5xx carries (but on a route with `config.ownErrorShape`,
 * whose protocol has its own). Only the document changes: a route's answers are serialized as
 * before.
 *
 * @example
 * await app.register(fastifySwagger, { openapi, transform: openApiTransform })
 */
export const openApiTransform: typeof jsonSchemaTransform = (document) => {
  const transformed = jsonSchemaTransform(document)
  const schema = transformed.schema as
    | { hide?: boolean; response?: Record<string, unknown> }
    | undefined
  if (!schema || schema.hide) return transformed
  const config = document.route.config as { ownErrorShape?: boolean } | undefined
  // With a `default` alone, the success fastify would have listed when a route declares no
  // answer would be gone.
  const success = Object.keys(schema.response ?? {}).some((status) => status.startsWith('2'))
    ? {}
    : { '2xx': { description: 'Success: the route’s answer (docs/http-api.md describes it).' } }
  return {
    ...transformed,
    schema: {
      ...schema,
      response: {
        ...success,
        ...schema.response,
        ...(config?.ownErrorShape ? {} : { default: errorResponse }),
      },
    },
  }
}
