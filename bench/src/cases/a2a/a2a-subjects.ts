import { findPostgresBinaries, startPostgres } from '@baton/testing/postgres'
import { loadTest, pairedLoadTest } from '../../measure'
import { loadFigure } from '../http-load/load-figure'
import { loadSeconds, warmUpSeconds } from '../http-load/load-seconds'
import { pairedFigure, pairedRounds } from '../http-load/paired-figure'
import type { Size, Subjects } from '../types'

// A v1.0 JSON-RPC SendMessage with a fresh message id per request.
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: '[<id>]', role: 'ROLE_USER', parts: [{ text: 'Hi' }] } },
})
const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' }
const request = { method: 'POST', headers, body } as const
const referenceServer = { server: 'a2a-reference', path: 'a2a', ...request }

async function reference(size: Size) {
  return loadFigure(
    await loadTest({
      ...referenceServer,
      seconds: loadSeconds(size),
      warmUpSeconds: warmUpSeconds(size),
    }),
  )
}

/** The same request to each server: the reference alone, then Baton's beside it. */
export const a2aSubjects: Subjects = {
  bare: reference,

  async baton(size) {
    const paired = await pairedLoadTest({
      subject: { server: 'baton', path: 'a2a', ...request },
      reference: referenceServer,
      ...pairedRounds(size),
    })
    return pairedFigure(paired, "the reference's", 'message')
  },
}

/**
 * The same, with Baton's server on a database of a throw-away PostgreSQL cluster started here
 * on 127.0.0.1 (a free port; as the `postgres` user when run as root), as the scale-out row
 * and the server's PostgreSQL tests start theirs.
 */
export const a2aPostgresSubjects: Subjects = {
  bare: reference,

  async baton(size) {
    const bin = findPostgresBinaries()
    if (!bin) throw new Error('skipped: PostgreSQL binaries not found (apt-get install postgresql)')
    const postgres = await startPostgres(bin)
    try {
      const paired = await pairedLoadTest({
        subject: {
          server: 'baton',
          path: 'a2a',
          ...request,
          environment: { BATON_BENCH_DATABASE_URL: await postgres.createDatabase() },
        },
        reference: referenceServer,
        ...pairedRounds(size),
      })
      return pairedFigure(paired, "the reference's", 'message')
    } finally {
      await postgres.stop()
    }
  },
}
