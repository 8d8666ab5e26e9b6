import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** True when `redis-server` is on the PATH. */
export const hasRedis = !spawnSync('redis-server', ['--version']).error

/** Tests that need Redis run when it is installed, and must run (and fail without it) in CI. */
export const runRedisTests = hasRedis || process.env.CI === 'true'

export const installRedis =
  'install it (Debian/Ubuntu: `apt-get install -y redis-server`; macOS: `brew install redis`)'

/**
 * Starts a throw-away `redis-server` on 127.0.0.1 on a free port, with no persistence and a
 * temporary data folder; `stop()` kills it and removes the folder.
 *
 * @example
 * const redis = await startRedisServer()
 * const guard = createRedisLoopGuard({ url: redis.url })
 * await redis.stop()
 */
export async function startRedisServer(): Promise<{ url: string; stop: () => void }> {
  if (!hasRedis) throw new Error(`redis-server is not on PATH, and CI needs it: ${installRedis}.`)
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'baton-redis-'))
  const server: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { cwd: dataDir, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const stop = () => {
    server.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    await new Promise<void>((resolve, reject) => {
      let output = ''
      server.stdout?.on('data', (chunk) => {
        output += String(chunk)
        if (output.includes('Ready to accept connections')) resolve()
      })
      server.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${output}`)))
    })
  } catch (error) {
    stop()
    throw error
  }
  return { url: `redis://127.0.0.1:${port}`, stop }
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  if (typeof address !== 'object' || !address) throw new Error('no port')
  return address.port
}
