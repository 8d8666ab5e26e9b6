import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ValidationError } from '@baton/core'
import { afterAll, describe, expect, it } from 'vitest'
import { runServerToExit } from '../__fixtures__/server-process'
import { readSettings } from './settings'

/** The issues `readSettings` refuses `environment` with (it must refuse it). */
function issuesOf(environment: Record<string, string>) {
  try {
    readSettings(environment)
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError)
    return (error as ValidationError).issues
  }
  throw new Error(`${JSON.stringify(environment)} was not refused`)
}

describe('a numeric setting', () => {
  const dirs: string[] = []
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })))
  })

  // `PORT=abc` said "expected number, received NaN", `PORT=80.5` "expected int, received
  // number", and `PORT=0x1f90` started the server on port 8080.
  it('that is not a whole decimal number is refused, naming the setting and the text', () => {
    expect(issuesOf({ PORT: 'abc' })).toEqual([
      { path: 'PORT', message: 'expected a whole number, got "abc"' },
    ])
    expect(issuesOf({ PORT: '80.5', BATON_LEASE_MS: '30s' })).toEqual([
      { path: 'PORT', message: 'expected a whole number, got "80.5"' },
      { path: 'BATON_LEASE_MS', message: 'expected a whole number, got "30s"' },
    ])
    expect(issuesOf({ PORT: '0x1f90' })).toEqual([
      { path: 'PORT', message: 'expected a whole number, got "0x1f90"' },
    ])
    expect(issuesOf({ BATON_BODY_LIMIT: '1e6' })).toEqual([
      { path: 'BATON_BODY_LIMIT', message: 'expected a whole number, got "1e6"' },
    ])
  })

  it('is read in decimal, spaces around it too, its bounds still hold, and unset is its default', () => {
    const settings = readSettings({ PORT: ' 8080 ', BATON_RATE_LIMIT: '1200' })
    expect(settings.port).toBe(8080)
    expect(settings.rateLimit.max).toBe(1200)
    expect(readSettings({}).port).toBe(8787)
    expect(issuesOf({ PORT: '70000' })[0]?.path).toBe('PORT')
  })

  it('that is wrong stops the server before it listens, with one line naming it', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-number-setting-'))
    dirs.push(dataDir)
    const { code, output } = await runServerToExit({ BATON_DATA_DIR: dataDir, PORT: '0x1f90' })
    expect(code).toBe(1)
    expect(output).toContain('PORT: expected a whole number, got "0x1f90"')
    expect(output).not.toContain('listening')
  })
})
