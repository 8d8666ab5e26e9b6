import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'

/**
 * `GET /api/v1/runtime`: the address that signs this server's run receipts and where its key
 * came from, so a verifier can pin it (`verifyRunReceipt(receipt, { runtime: address })`)
 * instead of trusting the signer a receipt names.
 */
export const runtimeRoutes: FastifyPluginAsyncZod = async (app) => {
  const { runtime } = app.baton
  app.get(
    '/api/v1/runtime',
    {
      schema: {
        tags: ['runs'],
        summary:
          'The runtime address that signs run receipts (BATON_RUNTIME_KEY or the development key)',
      },
    },
    async () => ({ address: runtime.address, source: runtime.source }),
  )
}
