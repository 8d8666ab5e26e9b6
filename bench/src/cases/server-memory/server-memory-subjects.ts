import { type ClientRequest, request as httpRequest } from 'node:http'
import { startServerProcess } from '../../measure'
import { formatNumber } from '../../report/format-number'
import type { Subjects } from '../types'
import { memoryLoad } from './server-memory-case'

type Usage = { memory: { external: number; heapUsed: number } }
const mib = (bytes: number) => bytes / 1024 / 1024

/** Opens `count` clients of the message stream, resolving once each has its headers. */
async function openStreams(url: string, count: number): Promise<ClientRequest[]> {
  const requests: ClientRequest[] = []
  for (let start = 0; start < count; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - start) }, () => {
        const request = httpRequest(`${url}/api/v1/messages/stream`, { agent: false })
        requests.push(request)
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
  return requests
}

export const serverMemorySubjects: Subjects = {
  async baton(size) {
    const { agents, clients } = memoryLoad(size)
    const server = await startServerProcess('baton')
    let streams: ClientRequest[] = []
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      server.send('memory')
      const idle = await server.next<Usage>('memory')
      const idleMiB = await server.rssMiB()
      server.send(`seed ${agents}`)
      await server.next('seeded', 600_000)
      streams = await openStreams(server.url, clients)
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      server.send('memory')
      const loaded = await server.next<Usage>('memory')
      const loadedMiB = await server.rssMiB()
      const delta = loadedMiB - idleMiB
      return {
        value: delta,
        text: `idle ${formatNumber(idleMiB)} (outside the JS heap ${formatNumber(mib(idle.memory.external))}, JS heap ${formatNumber(mib(idle.memory.heapUsed))}); Δ ${formatNumber(delta)} (outside the heap ${formatNumber(mib(loaded.memory.external))}, JS heap ${formatNumber(mib(loaded.memory.heapUsed))})`,
        details: {
          idleMiB,
          loadedMiB,
          idleExternalMiB: mib(idle.memory.external),
          loadedExternalMiB: mib(loaded.memory.external),
          idleHeapMiB: mib(idle.memory.heapUsed),
          loadedHeapMiB: mib(loaded.memory.heapUsed),
          agents,
          clients,
        },
      }
    } finally {
      for (const stream of streams) stream.destroy()
      await server.stop()
    }
  },
}
