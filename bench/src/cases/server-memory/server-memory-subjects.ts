import { mkdtemp, rm } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type ProductionServer, startProductionServer } from '../../measure/production-server'
import { startServerProcess } from '../../measure/server-process'
import { formatNumber } from '../../report/format-number'
import type { Subjects } from '../types'
import { memoryLoad } from './server-memory-case'

const SETTLE_MS = 3_000
// A thousand clients from one address are the load, not an abuse: the rate limit is raised.
const unlimited = { BATON_RATE_LIMIT: '1000000000' }
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS))

/** Opens `count` clients of the message stream, resolving once each has its headers. */
async function openStreams(url: string, count: number): Promise<(() => void)[]> {
  const closers: (() => void)[] = []
  for (let start = 0; start < count; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - start) }, () => {
        const request = httpRequest(`${url}/api/v1/messages/stream`, { agent: false })
        closers.push(() => request.destroy())
        return new Promise<void>((resolve, reject) => {
          request.once('response', (response) => {
            if (response.statusCode !== 200) reject(new Error(`stream: ${response.statusCode}`))
            response.resume()
            resolve()
          })
          request.once('error', reject)
          request.end()
        })
      }),
    )
  }
  return closers
}

/** Reads every page of `GET /api/v1/agents`, as a directory client would. */
async function listAllAgents(url: string): Promise<number> {
  let seen = 0
  for (;;) {
    const response = await fetch(`${url}/api/v1/agents?limit=200&offset=${seen}`)
    const page = (await response.json()) as { agents: unknown[] }
    seen += page.agents.length
    if (page.agents.length < 200) return seen
  }
}

/**
 * Registers `count` agents into the folder through the server's repository, in a bench process
 * of its own (sources), while no production server holds the folder.
 */
async function seedFolder(dataDir: string, count: number): Promise<void> {
  const seeder = await startServerProcess('baton', { env: { BATON_BENCH_DATA_DIR: dataDir } })
  try {
    seeder.send(`seed ${count}`)
    await seeder.next('seeded', 600_000)
  } finally {
    await seeder.stop()
  }
}

async function measure(server: ProductionServer) {
  const [memory, metrics] = await Promise.all([server.memory(), server.metrics()])
  return { ...memory, ...metrics }
}

export const serverMemorySubjects: Subjects = {
  /**
   * The production build (`pnpm start`'s command and flags) in a process of its own, measured
   * from outside by its PID: idle on a new folder after the demo's seed; then, started again
   * on the same folder holding `agents` more agents, every page of the agent list read and
   * `clients` SSE clients open.
   */
  async baton(size) {
    const { agents, clients } = memoryLoad(size)
    const dataDir = await mkdtemp(path.join(tmpdir(), 'baton-bench-memory-'))
    let server: ProductionServer | undefined
    let closers: (() => void)[] = []
    try {
      server = await startProductionServer({ dataDir, env: unlimited })
      await settle()
      const idle = await measure(server)
      await server.stop()
      server = undefined
      await seedFolder(dataDir, agents)
      server = await startProductionServer({ dataDir, env: unlimited })
      const listed = await listAllAgents(server.url)
      closers = await openStreams(server.url, clients)
      await settle()
      const loaded = await measure(server)
      const delta = loaded.rssMiB - idle.rssMiB
      const f = formatNumber
      return {
        value: delta,
        text: `idle ${f(idle.rssMiB)} (JS heap ${f(idle.heapUsedMiB)} of ${f(idle.heapTotalMiB)}, external/WebAssembly ${f(idle.externalMiB)}); +${listed} agents listed, ${clients} SSE clients: Δ ${f(delta)} (JS heap ${f(loaded.heapUsedMiB)}, external ${f(loaded.externalMiB)})`,
        details: {
          idleMiB: idle.rssMiB,
          loadedMiB: loaded.rssMiB,
          idleAnonymousMiB: idle.anonymousMiB,
          idleFileMiB: idle.fileMiB,
          idleHeapUsedMiB: idle.heapUsedMiB,
          idleHeapTotalMiB: idle.heapTotalMiB,
          idleExternalMiB: idle.externalMiB,
          loadedHeapUsedMiB: loaded.heapUsedMiB,
          loadedExternalMiB: loaded.externalMiB,
          agentsListed: listed,
          agents,
          clients,
        },
      }
    } finally {
      for (const close of closers) close()
      await server?.stop()
      await rm(dataDir, { recursive: true, force: true })
    }
  },
}
