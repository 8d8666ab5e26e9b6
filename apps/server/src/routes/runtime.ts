import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { registryIdOf } from '../registry/registry-id'
import { Runtime } from './responses/agents'

/**
 * `GET /api/v1/runtime`: the address that signs this server's run receipts and where its key
 * came from, so a verifier can pin it (`verifyRunReceipt(receipt, { runtime: address })`)
 * instead of trusting the signer a receipt names; and `registry`, the id registrations for
 * this server are signed with (`signAgentRegistration(agent, { registry, … })`).
 */
export const runtimeRoutes: FastifyPluginAsyncZod = async (app) => {
  const { runtime, settings } = app.baton
  const registry = registryIdOf({
    registryId: settings.registryId,
    runtimeAddress: runtime.address,
  })
  app.get(
    '/api/v1/runtime',
    {
      schema: {
        tags: ['runs'],
        summary:
          'The runtime address that signs run receipts, and the registry id registrations are signed for',
        response: { 200: Runtime },
      },
    },
    async () => ({ address: runtime.address, source: runtime.source, registry }),
  )
}
