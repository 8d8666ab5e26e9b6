import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from '../ports/free-port'

/** True when `redis-server` is on the PATH. */
export const hasRedis = !spawnSync('redis-server', ['--version']).error

/** Tests that need Redis run when it is installed, and must run (and fail without it) in CI. */
export const runRedisTests = hasRedis || process.env.CI === 'true'

/** How to install Redis, for skip and failure messages. */
export const installRedis =
  'install it (Debian/Ubuntu: `apt-get install -y redis-server`; macOS: `brew install redis`)'

export type StartRedisServerOptions = {
  /**
   * `none` (default): no persistence at all, the fastest throw-away Redis. `append-only`: an
   * append-only file with fsync always and no eviction, as BullMQ wants Redis to be deployed,
   * so a restart (or a kill and start) loses no write.
   */
  persistence?: 'none' | 'append-only'
}

export type RedisServer = {
  url: string
  /** Stops Redis (SIGTERM, as a service manager does) and starts it again on the same port. */
  restart(options?: { downMs?: number }): Promise<void>
  /** Kills Redis by its PID (SIGKILL: no shutdown of its own); its data folder is kept. */
  kill(): Promise<void>
  /**
   * Stops Redis where it stands (SIGSTOP): connections stay open, and what clients send waits
   * unread until `resume` (or is lost with it when it is then killed).
   */
  pause(): void
  /** Lets a paused Redis go on (SIGCONT). */
  resume(): void
  /** Starts a killed Redis again on the same port and data folder. */
  start(): Promise<void>
  /** Kills Redis and removes its data folder. */
  stop(): Promise<void>
}

/**
 * Starts a throw-away `redis-server` on 127.0.0.1 and a free port, in a temporary data
 * folder; `stop()` kills it by its PID and removes the folder. Throws a message saying how to
 * install Redis when `redis-server` is not on the PATH.
 *
 * @example
 * const redis = await startRedisServer({ persistence: 'append-only' })
 * await redis.restart()
 * await redis.stop()
 */
export async function startRedisServer({
  persistence = 'none',
}: StartRedisServerOptions = {}): Promise<RedisServer> {
  if (!hasRedis) throw new Error(`redis-server is not on PATH, and CI needs it: ${installRedis}.`)
  const port = await freePort()
  const dir = await mkdtemp(path.join(tmpdir(), 'baton-redis-'))
  const durability =
    persistence === 'append-only'
      ? ['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction']
      : ['--appendonly', 'no']
  let server: ChildProcess | undefined
  const start = async () => {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...durability],
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
  const stop = async () => {
    await halt('SIGKILL')
    await rm(dir, { recursive: true, force: true })
  }
  try {
    await start()
  } catch (error) {
    await stop()
    throw error
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart({ downMs = 500 } = {}) {
      await halt('SIGTERM')
      await new Promise((resolve) => setTimeout(resolve, downMs))
      await start()
    },
    kill: () => halt('SIGKILL'),
    pause: () => void server?.kill('SIGSTOP'),
    resume: () => void server?.kill('SIGCONT'),
    start,
    stop,
  }
}
