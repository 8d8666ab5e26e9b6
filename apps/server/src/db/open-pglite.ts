import { spawn } from 'node:child_process'
import { access } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { PGlite } from '@electric-sql/pglite'

/**
 * The embedded database's `postgresql.conf`, written at every open: what `initdb` writes
 * (locale, time zone, text search), with Baton's own sizing. PostgreSQL's default shared
 * buffers (128 MB) are touched as the WebAssembly heap fills, so an idle server held ~180 MB
 * of them. With 8 MB, a loaded server read its pages back through the file system at every
 * statement (`read` was 11–14% of the server's CPU under `POST /api/v1/runs`); 32 MB holds
 * the working set of that load and costs an idle server ~20 MB more resident. The WAL
 * buffers stay at 512 kB (what 16 MB of shared buffers gave them, 1/32), so a large commit is
 * not split. `startParams` cannot carry these: a `-c` there stops PGlite from starting.
 */
export const pgliteConfiguration = [
  'max_connections = 10',
  'shared_buffers = 32MB',
  'wal_buffers = 512kB',
  'dynamic_shared_memory_type = posix',
  'max_wal_size = 1GB',
  'min_wal_size = 80MB',
  "log_timezone = 'Etc/GMT0'",
  "datestyle = 'iso, mdy'",
  "timezone = 'Etc/GMT0'",
  'lc_messages = C',
  'lc_monetary = C',
  'lc_numeric = C',
  'lc_time = C',
  "default_text_search_config = 'pg_catalog.english'",
].join('\n')

// Creates the folder's database and stops: run by a short-lived child process.
const initScript = `
const [entry, folder, configuration] = process.argv.slice(1)
const { PGlite } = await import(entry)
const pglite = await PGlite.create(folder, { postgresqlconf: configuration })
await pglite.close()
`

/**
 * Opens PGlite in `folder` with Baton's configuration. A new folder's `initdb` runs in a child
 * process first: PGlite runs it in a second WebAssembly instance whose memory (~450 MB) this
 * process would never give back. When the child fails, the database is created here instead,
 * so the error is the one PGlite gives (and start-up reports it as it always did).
 *
 * @example
 * const pglite = await openPglite('./.baton/pglite')
 */
export async function openPglite(folder: string): Promise<PGlite> {
  if (!(await exists(path.join(folder, 'PG_VERSION')))) await initInChild(folder).catch(() => {})
  return PGlite.create(folder, { postgresqlconf: pgliteConfiguration })
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  )
}

async function initInChild(folder: string): Promise<void> {
  const require = createRequire(import.meta.url)
  // The package's ESM entry, beside its CommonJS one (the package.json is not exported).
  const entry = pathToFileURL(
    path.join(path.dirname(require.resolve('@electric-sql/pglite')), 'index.js'),
  ).href
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', initScript, entry, folder, pgliteConfiguration],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  )
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text
  })
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', resolve)
  })
  if (code !== 0) throw new Error(`initdb exited with ${code}: ${stderr.slice(0, 500)}`)
}
