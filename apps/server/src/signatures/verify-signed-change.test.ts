import { toHighS } from '@baton/core'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signedRegistration } from '../__fixtures__/signed-agents'
import { createTestApp } from '../__fixtures__/test-app'

let app: FastifyInstance
beforeAll(async () => {
  app = await createTestApp()
})
afterAll(async () => {
  await app.close()
})

describe('registration signatures', () => {
  it.each(['creatorSignature', 'agentSignature'] as const)(
    'refuses the high-s twin of a valid %s with 401 and registers nothing',
    async (field) => {
      const { body, agent } = await signedRegistration()
      const twin = { ...body, [field]: toHighS(body[field]) }
      const response = await app.inject({ method: 'POST', url: '/api/v1/agents', payload: twin })
      expect(response.statusCode).toBe(401)
      expect(response.json().error).toMatchObject({ code: 'SIGNATURE_INVALID' })
      expect(response.json().error.message).toMatch(/high-s/)
      const lookup = await app.inject({ method: 'GET', url: `/agent/${agent.wallet}` })
      expect(lookup.statusCode).toBe(404)
      // The signature as the wallet made it is accepted.
      const original = await app.inject({ method: 'POST', url: '/api/v1/agents', payload: body })
      expect(original.statusCode).toBe(201)
    },
  )
})
