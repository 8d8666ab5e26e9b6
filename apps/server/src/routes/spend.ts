import { isWallet, parseWallet } from '@baton/core'
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { assertOwned } from '../auth/owned'
import { hasScope } from '../auth/principal'
import type { StoredUsage } from '../db/database'
import { HttpError, NotFoundError } from '../http/http-errors'
import { LedgerPage, RunLedgerPage, SpendReport } from './responses/bus'
import { IdParams, Page } from './schemas'

const SpendQuery = z.object({
  by: z.enum(['wallet', 'run']).default('wallet'),
  since: z.iso.datetime({ offset: true }).optional(),
})

const LedgerQuery = Page.extend({
  runId: z.string().min(1).optional(),
  wallet: z.string().min(1).optional(),
})

const zero: StoredUsage = { calls: 0, tokens: 0, costUsd: 0 }
const sum = (rows: StoredUsage[]): StoredUsage =>
  rows.reduce(
    (total, row) => ({
      calls: total.calls + row.calls,
      tokens: total.tokens + row.tokens,
      costUsd: Math.round((total.costUsd + row.costUsd) * 1e12) / 1e12,
    }),
    zero,
  )

/**
 * The ledger: `GET /api/v1/spend?by=wallet|run&since=` (totals), `GET /api/v1/ledger?runId=&wallet=`
 * and `GET /api/v1/runs/:id/ledger` (the rows, each with its step and the run's attempt).
 */
export const spendRoutes: FastifyPluginAsyncZod = async (app) => {
  const { ledger, runs } = app.baton.repositories
  // The server-wide books show every owner's spend: admins' (or anyone's when reads are public).
  const assertAllBooks = (request: FastifyRequest, route: string) => {
    if (request.readsArePublic || hasScope(request.principal, 'admin')) return
    throw new HttpError(
      403,
      'FORBIDDEN',
      `${route} shows every owner's spend: it needs the admin scope while reads are private (a run's own books are at /api/v1/runs/:id/ledger).`,
      { scope: 'admin' },
    )
  }

  app.get(
    '/api/v1/spend',
    {
      schema: {
        tags: ['spend'],
        summary: 'Spend by wallet or by run',
        querystring: SpendQuery,
        response: { 200: SpendReport },
      },
    },
    async (request) => {
      assertAllBooks(request, 'GET /api/v1/spend')
      const { by, since } = request.query
      const rows = await ledger.spend({ by, ...(since ? { since: new Date(since) } : {}) })
      return {
        by,
        since: since ?? null,
        spend: rows.map(({ key, ...usage }) =>
          by === 'wallet' ? { wallet: key, ...usage } : { run: key, ...usage },
        ),
        total: sum(rows),
      }
    },
  )

  app.get(
    '/api/v1/ledger',
    {
      schema: {
        tags: ['spend'],
        summary: 'Ledger rows (with step and attempt), of one run or one wallet',
        querystring: LedgerQuery,
        response: { 200: LedgerPage },
      },
    },
    async (request) => {
      const { runId, wallet, limit, offset } = request.query
      if (runId) {
        const run = await runs.find(runId)
        if (!run) throw new NotFoundError('run', runId)
        assertOwned(request, run.owner, 'read', 'run', runId)
      } else {
        assertAllBooks(request, 'GET /api/v1/ledger')
      }
      // The ledger keeps wallets checksummed; any spelling of one finds its rows.
      const owner = wallet && isWallet(wallet) ? parseWallet(wallet) : wallet
      const page = await ledger.entries({
        limit,
        offset,
        ...(runId ? { runId } : {}),
        ...(owner ? { wallet: owner } : {}),
      })
      return { ...page, limit, offset }
    },
  )

  app.get(
    '/api/v1/runs/:id/ledger',
    {
      schema: {
        tags: ['runs', 'spend'],
        summary: "A run's ledger rows: every attempt of every step, and their total",
        params: IdParams,
        querystring: Page,
        response: { 200: RunLedgerPage },
      },
    },
    async (request) => {
      const { id } = request.params
      const run = await runs.find(id)
      if (!run) throw new NotFoundError('run', id)
      assertOwned(request, run.owner, 'read', 'run', id)
      const { limit, offset } = request.query
      const [page, books] = await Promise.all([
        ledger.entries({ runId: id, limit, offset }),
        ledger.booksOfRun(id),
      ])
      return {
        runId: id,
        attempt: run.attempt,
        usage: run.usage,
        ledgerTotal: books.usage,
        ...page,
        limit,
        offset,
      }
    },
  )
}
