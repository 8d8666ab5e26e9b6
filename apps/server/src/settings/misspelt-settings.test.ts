import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ValidationError } from '@baton/core'
import { afterAll, describe, expect, it } from 'vitest'
import { runServerToExit } from '../__fixtures__/server-process'
import { readSettings } from './settings'

const token = 'a-token-of-sixteen-or-more'

describe('a misspelt setting', () => {
  const dirs: string[] = []
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
  })

  it('is refused, naming it and the setting meant, when that setting is unset', () => {
    let caught: unknown
    try {
      readSettings({
        BATON_API_TOKN: token,
        BATON_PUBLC_READS: 'true',
        DATABASE_URI: 'postgres://127.0.0.1:5432/baton',
      })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ValidationError)
    expect((caught as ValidationError).issues).toEqual([
      {
        path: 'BATON_API_TOKN',
        message: expect.stringContaining('did you mean BATON_API_TOKEN? It is unset'),
      },
      { path: 'BATON_PUBLC_READS', message: expect.stringContaining('BATON_PUBLIC_READS') },
      // The embedded database on local disk, where PostgreSQL was meant.
      { path: 'DATABASE_URI', message: expect.stringContaining('did you mean DATABASE_URL?') },
    ])
  })

  it('leaves alone the variables other parts read, a near name whose setting is set, and names far from any', () => {
    const settings = readSettings({
      BATON_API_TOKEN: token,
      // A leftover beside the setting it was meant to be: the setting holds.
      BATON_API_TOKN: 'stale',
      BATON_SERVER_URL: 'http://127.0.0.1:8787',
      BATON_USER: 'ops',
      BATON_OPENAI_API_KEY: 'sk-test',
      BATON_SOMETHING_ELSE: '1',
      HOME: '/home/ops',
      HOST: '127.0.0.1',
      PATH: '/usr/bin',
    })
    expect(settings.apiToken).toBe(token)
  })

  it('stops the server before it listens, rather than serve with no token: open to anyone', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-misspelt-'))
    dirs.push(dataDir)
    const { code, output } = await runServerToExit({
      BATON_DATA_DIR: dataDir,
      BATON_API_TOKN: token,
      PORT: '0',
    })
    expect(code).toBe(1)
    expect(output).toContain(
      'BATON_API_TOKN: is no setting of the server: did you mean BATON_API_TOKEN?',
    )
    expect(output).not.toMatch(/listening|http:\/\/127\.0\.0\.1:\d+/i)
  })
})
