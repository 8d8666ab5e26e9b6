import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { runKeysCommand } from './keys'

let dataDir: string
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'baton-keys-cli-'))
})
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true })
})

const run = async (args: string[]) => {
  const lines: string[] = []
  const code = await runKeysCommand(
    args,
    { BATON_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    (line) => lines.push(line),
  )
  return { code, lines }
}

describe('keys (the CLI)', () => {
  it('makes a key the server then accepts, and makes reads private (no token set)', async () => {
    const made = await run(['create', '--name', 'ci', '--scopes', 'read,run'])
    expect(made.code).toBe(0)
    const key = made.lines.find((line) => line.startsWith('baton_'))!
    expect(key).toMatch(/^baton_[\w-]{43}$/)
    const app = await createTestApp({ dataDir, publicReads: undefined })
    try {
      expect((await app.inject({ method: 'GET', url: '/api/v1/runs' })).statusCode).toBe(401)
      const own = await app.inject({
        method: 'GET',
        url: '/api/v1/runs',
        headers: { authorization: `Bearer ${key}` },
      })
      expect(own.statusCode).toBe(200)
    } finally {
      await app.close()
    }
    const listed = await run(['list'])
    expect(listed.lines.join('\n')).toMatch(/ci {2}read,run {2}live/)
    expect(listed.lines.join('\n')).not.toContain(key)
    expect((await run(['revoke', 'ci'])).code).toBe(0)
  }, 120_000)

  it('refuses a database kept in memory: the key would be in no server', async () => {
    const lines: string[] = []
    const code = await runKeysCommand(
      ['create', '--name', 'ci', '--scopes', 'read'],
      { BATON_DATA_DIR: 'memory://', LOG_LEVEL: 'silent' },
      (line) => lines.push(line),
    )
    expect(code).toBe(2)
    expect(lines.join('\n')).toMatch(/memory:\/\/ is a server's own memory.*POST \/api\/v1\/keys/)
  })

  it('refuses an unknown scope, naming the flag', async () => {
    const refused = await run(['create', '--name', 'x', '--scopes', 'read,everything'])
    expect(refused.code).toBe(2)
    expect(refused.lines.join('\n')).toMatch(/--scopes must be some of read, run, register, admin/)
  })
})
