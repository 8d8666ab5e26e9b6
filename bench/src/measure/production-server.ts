import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { stopChild } from '@baton/testing/processes'

const repository = fileURLToPath(new URL('../../../', import.meta.url))
const entry = fileURLToPath(new URL('../../../apps/server/dist/main.js', import.meta.url))

/**
 * The Node.js flags of the root `start` script (`node <flags> apps/server/dist/main.js`), so the
 * bench starts the server exactly the way a user does.
 */
export function startScriptNodeFlags(): string[] {
  const { scripts } = JSON.parse(readFileSync(`${repository}package.json`, 'utf8')) as {
    scripts: { start: string }
  }
  const command = scripts.start.split('&&').at(-1)!.trim().split(/\s+/)
  return command.slice(command.indexOf('node') + 1, command.indexOf('apps/server/dist/main.js'))
}

export type ProductionServer = {
  url: string
  pid: number
  /** Resident set (VmRSS) and its split from /proc/<pid>, MiB. */
  memory(): Promise<{ rssMiB: number; anonymousMiB: number; fileMiB: number }>
  /** `GET /metrics`'s heap and external figures (prom-client's default metrics), MiB. */
  metrics(): Promise<{ heapUsedMiB: number; heapTotalMiB: number; externalMiB: number }>
  stop(): Promise<void>
}

const kib = (text: string, field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) / 1024

/**
 * Starts the server from its build (`pnpm build` first) in a process of its own, with the
 * start script's flags, on `dataDir`, and resolves once it prints its URL.
 *
 * @example
 * const server = await startProductionServer({ dataDir }) // (await server.memory()).rssMiB
 */
export async function startProductionServer(options: {
  dataDir: string
  env?: Record<string, string>
}): Promise<ProductionServer> {
  if (!existsSync(entry)) throw new Error('apps/server/dist/main.js is missing: run `pnpm build`')
  const child: ChildProcess = spawn(process.execPath, [...startScriptNodeFlags(), entry], {
    cwd: repository,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      BATON_DATA_DIR: options.dataDir,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let output = ''
    const timer = setTimeout(() => reject(new Error('the server did not start in 120 s')), 120_000)
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      output += text
      const found = /listening on (http:\/\/\S+)/.exec(output)
      if (found) {
        clearTimeout(timer)
        resolve(found[1]!)
      }
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`the server exited with ${code}: ${output.slice(0, 300)}`))
    })
  })
  child.stdout!.resume()
  const pid = child.pid!
  return {
    url,
    pid,
    async memory() {
      const [status, rollup] = await Promise.all([
        readFile(`/proc/${pid}/status`, 'utf8'),
        readFile(`/proc/${pid}/smaps_rollup`, 'utf8'),
      ])
      return {
        rssMiB: kib(status, 'VmRSS'),
        anonymousMiB: kib(rollup, 'Anonymous'),
        fileMiB: kib(status, 'RssFile'),
      }
    },
    async metrics() {
      const text = await (await fetch(`${url}/metrics`)).text()
      const read = (name: string) =>
        Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN) / 1024 / 1024
      return {
        heapUsedMiB: read('nodejs_heap_size_used_bytes'),
        heapTotalMiB: read('nodejs_heap_size_total_bytes'),
        externalMiB: read('nodejs_external_memory_bytes'),
      }
    },
    stop: () => stopChild(child, { signal: 'SIGTERM', graceMs: 30_000 }),
  }
}
