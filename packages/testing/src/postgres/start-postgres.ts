import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { freePort } from '../ports/free-port'
import { createDatabase } from './create-database'

const run = promisify(execFile)

/** Where Debian puts PostgreSQL's server binaries (newest version first), or `PG_BIN`. */
export function findPostgresBinaries(): string | undefined {
  const fromEnvironment = process.env.PG_BIN
  if (fromEnvironment && existsSync(path.join(fromEnvironment, 'initdb'))) return fromEnvironment
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((name) => existsSync(path.join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined
}

export type PostgresCluster = {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string
  /** A fresh, empty database in the cluster; its URL. */
  createDatabase(): Promise<string>
  /** Stops the server as an operator does (`pg_ctl stop -m fast`); the data stays. */
  halt(): Promise<void>
  /** Starts the halted server again on the same port. */
  resume(): Promise<void>
  /**
   * Freezes the postmaster and every backend (SIGSTOP by PID): connections stay open and
   * nothing answers. `thaw` sends SIGCONT to the same processes.
   */
  freeze(): Promise<void>
  thaw(): Promise<void>
  stop(): Promise<void>
}

/**
 * Starts a throw-away PostgreSQL cluster on 127.0.0.1 and a free port, in a fresh temp
 * folder (as the `postgres` user when run as root: PostgreSQL refuses to run as root).
 *
 * @example
 * const cluster = await startPostgres(findPostgresBinaries()!)
 * const url = await cluster.createDatabase()
 * await cluster.stop()
 */
export async function startPostgres(bin: string): Promise<PostgresCluster> {
  const dir = await mkdtemp(path.join(tmpdir(), 'baton-postgres-'))
  const asRoot = userInfo().uid === 0
  const user = asRoot ? 'postgres' : userInfo().username
  const as = async (command: string, args: string[]) => {
    if (!asRoot) return run(path.join(bin, command), args)
    const quoted = [path.join(bin, command), ...args].map(
      (part) => `'${part.replace(/'/g, `'\\''`)}'`,
    )
    return run('su', [user, '-c', quoted.join(' ')])
  }
  if (asRoot) {
    const { stdout } = await run('id', ['-u', user])
    const { stdout: group } = await run('id', ['-g', user])
    await chown(dir, Number(stdout.trim()), Number(group.trim()))
  }
  const data = path.join(dir, 'data')
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'])
  const port = await freePort()
  const start = () =>
    as('pg_ctl', [
      '-D',
      data,
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      '-l',
      path.join(dir, 'log'),
      '-w',
      'start',
    ])
  await start()
  let frozen: number[] = []
  const thaw = async () => {
    for (const pid of frozen) {
      try {
        process.kill(pid, 'SIGCONT')
      } catch {
        // Gone already.
      }
    }
    frozen = []
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  return {
    url,
    createDatabase: () => createDatabase(url),
    async halt() {
      await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop'])
    },
    async resume() {
      await start()
    },
    async freeze() {
      const postmaster = Number(
        (await readFile(path.join(data, 'postmaster.pid'), 'utf8')).split('\n')[0],
      )
      frozen = [postmaster, ...childrenOf(postmaster)]
      for (const pid of frozen) process.kill(pid, 'SIGSTOP')
    },
    thaw,
    async stop() {
      await thaw()
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {})
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** The PIDs of a process's children (Linux: /proc). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter(Boolean)
      .map(Number)
  } catch {
    return []
  }
}
