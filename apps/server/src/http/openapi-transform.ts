import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ErrorResponse } from '../routes/schemas'
import { idempotencyKeyHeader, idempotencyKeyParameter } from './idempotency'

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
 * whose protocol has its own); and on a route with `config.idempotent`, the `Idempotency-Key`
 * header. Only the document changes: a route's answers are serialized as before.
 *
 * @example
 * await app.register(fastifySwagger, { openapi, transform: openApiTransform })
 */
export const openApiTransform: typeof jsonSchemaTransform = (document) => {
  const transformed = jsonSchemaTransform(document)
  const schema = transformed.schema as
    | {
        hide?: boolean
        response?: Record<string, unknown>
        headers?: { type?: string; properties?: Record<string, unknown> }
      }
    | undefined
  if (!schema || schema.hide) return transformed
  const config = document.route.config as
    | { ownErrorShape?: boolean; idempotent?: boolean }
    | undefined
  // A route that honours `Idempotency-Key` lists it among its header parameters.
  const headers = config?.idempotent
    ? {
        headers: {
          ...schema.headers,
          type: 'object',
          properties: {
            ...schema.headers?.properties,
            [idempotencyKeyHeader]: idempotencyKeyParameter,
          },
        },
      }
    : {}
  // With a `default` alone, the success fastify would have listed when a route declares no
  // answer would be gone.
  const success = Object.keys(schema.response ?? {}).some((status) => status.startsWith('2'))
    ? {}
    : { '2xx': { description: 'Success: the route’s answer (docs/http-api.md describes it).' } }
  return {
    ...transformed,
    schema: {
      ...schema,
      ...headers,
      response: {
        ...success,
        ...schema.response,
        ...(config?.ownErrorShape ? {} : { default: errorResponse }),
      },
    },
  }
}

/**
 * The document's components: every schema given an id (`.meta({ id: 'Agent' })`), named once
 * and referenced where it is used. fastify-type-provider-zod names each twice, as read and as
 * written (`AgentInput`); a variant that no operation refers to is left out.
 *
 * @example
 * await app.register(fastifySwagger, { openapi, transformObject: openApiTransformObject })
 */
export const openApiTransformObject: typeof jsonSchemaTransformObject = (document) => {
  const transformed = jsonSchemaTransformObject(document) as {
    components?: { schemas?: Record<string, unknown> }
  }
  const schemas = transformed.components?.schemas
  if (!schemas) return transformed as ReturnType<typeof jsonSchemaTransformObject>
  // Kept: every schema as written, and each variant as read that an operation or a kept
  // schema refers to.
  const kept = new Set(Object.keys(schemas).filter((name) => !name.endsWith('Input')))
  let referring = JSON.stringify((transformed as { paths?: unknown }).paths ?? {})
  for (let grew = true; grew; ) {
    grew = false
    for (const name of Object.keys(schemas)) {
      if (kept.has(name) || !referring.includes(`"#/components/schemas/${name}"`)) continue
      kept.add(name)
      referring += JSON.stringify(schemas[name])
      grew = true
    }
  }
  return {
    ...transformed,
    components: {
      ...transformed.components,
      schemas: Object.fromEntries(Object.entries(schemas).filter(([name]) => kept.has(name))),
    },
  } as ReturnType<typeof jsonSchemaTransformObject>
}
