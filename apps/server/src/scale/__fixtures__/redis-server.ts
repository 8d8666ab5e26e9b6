import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from '../../__fixtures__/server-process'

/** True when `redis-server` is on the PATH. */
export const hasRedis = !spawnSync('redis-server', ['--version']).error

export type RedisServer = {
  url: string
  /** Stops Redis (SIGTERM, as a service manager does) and starts it again on the same port. */
  restart(options?: { downMs?: number }): Promise<void>
  /** Kills Redis by its PID (SIGKILL: no shutdown of its own); its append-only file is kept. */
  kill(): Promise<void>
  /** Starts a killed Redis again on the same port, from its append-only file. */
  start(): Promise<void>
  stop(): Promise<void>
}

/**
 * Starts a throw-away `redis-server` on 127.0.0.1 and a free port with an append-only file
 * (fsync always), as BullMQ wants Redis to be deployed: a restart loses no job.
 *
 * @example
 * const redis = await startRedisServer()
 * await redis.restart()
 * await redis.stop()
 */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort()
  const dir = await mkdtemp(path.join(tmpdir(), 'baton-scale-redis-'))
  let server: ChildProcess | undefined
  const start = async () => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--maxmemory-policy',
        'noeviction',
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    server = child
    await new Promise<void>((resolve, reject) => {
      let output = ''
      child.stdout?.on('data', (chunk) => {
        output += String(chunk)
        if (output.includes('Ready to accept connections')) resolve()
      })
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}):\n${output}`)))
    })
  }
  const halt = async (signal: NodeJS.Signals) => {
    const child = server
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill(signal)
    await exited
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart({ downMs = 500 } = {}) {
      await halt('SIGTERM')
      await new Promise((resolve) => setTimeout(resolve, downMs))
      await start()
    },
    kill: () => halt('SIGKILL'),
    start,
    async stop() {
      await halt('SIGKILL')
      await rm(dir, { recursive: true, force: true })
    },
  }
}
