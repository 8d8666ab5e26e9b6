import { execFile } from 'node:child_process'
import { chmod, chown, mkdtemp, readdir, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export type Postgres = { url: string; stop(): Promise<void> }

/** The bin folder of the newest PostgreSQL installed under /usr/lib/postgresql, if any. */
export async function findPostgresBin(): Promise<string | undefined> {
  const root = '/usr/lib/postgresql'
  const versions = await readdir(root).catch(() => [] as string[])
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0]
  return newest ? path.join(root, newest, 'bin') : undefined
}

/**
 * A throw-away PostgreSQL cluster on a free port of 127.0.0.1, run as the `postgres` user
 * when this process is root (PostgreSQL refuses to run as root).
 */
export async function startPostgres(bin: string): Promise<Postgres> {
  const dir = await mkdtemp(path.join(tmpdir(), 'baton-a2a-pg-'))
  const data = path.join(dir, 'data')
  const port = await freePort()
  const asRoot = process.getuid?.() === 0
  const { uid, gid } = asRoot ? await postgresUser() : { uid: -1, gid: -1 }
  if (asRoot) {
    await chmod(dir, 0o700)
    await chown(dir, uid, gid)
  }
  const as = (command: string, args: string[]) =>
    asRoot
      ? run('su', ['postgres', '-c', [command, ...args].map(quote).join(' ')])
      : run(command, args)
  await as(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres'])
  await as(path.join(bin, 'pg_ctl'), [
    '-D',
    data,
    // A log file of its own: otherwise the server keeps our pipes open and the start never returns.
    '-l',
    path.join(dir, 'postgres.log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    '-w',
    'start',
  ])
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await as(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(
        () => undefined,
      )
      await rm(dir, { recursive: true, force: true })
    },
  }
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
    run('id', ['-u', 'postgres']),
    run('id', ['-g', 'postgres']),
  ])
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}
