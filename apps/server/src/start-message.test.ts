import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { pgliteFolderOf } from './db/open-database'
import { startMessage } from './start-message'

const url = 'http://127.0.0.1:8787'

describe('startMessage', () => {
  it('names the folder PGlite really uses, pglite/ under the data folder', () => {
    const dataDir = path.join('/srv', 'baton')
    const lines = startMessage({
      url,
      role: 'all',
      dataDir,
      database: { kind: 'pglite', location: pgliteFolderOf(dataDir) },
    })
    expect(lines).toEqual([
      `Baton server listening on ${url}`,
      `  open ${url}/ (playground) or ${url}/docs (HTTP API)`,
      `  data folder: ${dataDir} — PGlite in ${path.join(dataDir, 'pglite')}`,
    ])
  })

  it('names no playground for a worker, which answers only its health checks', () => {
    const lines = startMessage({
      url,
      role: 'worker',
      dataDir: '.baton',
      database: { kind: 'postgres', location: 'DATABASE_URL' },
    })
    expect(lines[1]).not.toMatch(/playground\)/)
    expect(lines[1]).toMatch(/worker.*\/health and \/ready only/)
    expect(lines[2]).toMatch(/PostgreSQL \(DATABASE_URL\)/)
  })

  it('says an in-memory database keeps nothing, and lists what it seeded', () => {
    const lines = startMessage({
      url,
      role: 'api',
      dataDir: 'memory://',
      database: { kind: 'pglite', location: 'memory://' },
      seeded: { created: true, agents: ['analyst'], swarm: 'dev-team', plans: ['risk-review'] },
    })
    expect(lines[2]).toMatch(/PGlite in memory/)
    expect(lines[3]).toBe('  seeded the demo: agents analyst; swarm dev-team; plans risk-review')
  })
})
