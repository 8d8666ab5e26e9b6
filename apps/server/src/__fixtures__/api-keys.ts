import type { FastifyInstance } from 'fastify'
import { expect } from 'vitest'

/**
 * Makes an API key through `POST /api/v1/keys` with the admin token, and returns the key (the
 * only time it is ever shown).
 *
 * @example
 * const alice = await makeApiKey(app, adminToken, 'alice', ['read', 'run'])
 */
export async function makeApiKey(
  app: FastifyInstance,
  adminToken: string,
  name: string,
  scopes: string[] = ['read', 'run'],
): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/keys',
    headers: { authorization: `Bearer ${adminToken}` },
    payload: { name, scopes },
  })
  expect(response.statusCode).toBe(201)
  return response.json().key as string
}
