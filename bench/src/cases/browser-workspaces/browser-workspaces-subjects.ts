import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createBudget } from '@baton/core'
import {
  BROWSER_TOOL_NAMES,
  createSupervisor,
  processTree,
  proportionalBytes,
  residentBytes,
  type SubagentRunner,
} from '@baton/subagents'
import { createBrowserWorkspaceProvider } from '@baton/subagents/browser'
import type { ToolExecutionOptions, ToolSet } from 'ai'
import { delegatingAgent } from '../../fixtures'
import { formatNumber } from '../../report/format-number'
import type { Figure, Subjects } from '../types'
import { browserAgentsOf } from './browser-workspaces-case'

const CHROMIUM = '/usr/bin/chromium'
const MIB = 1024 * 1024
const call: ToolExecutionOptions = { toolCallId: 'bench', messages: [] }
const PAGE = `<!doctype html><title>Bench</title><h1>Status</h1><ul>${'<li><a href="#">an item</a></li>'.repeat(50)}</ul><button>Refresh</button>`

async function run(tools: ToolSet, name: string, input: object): Promise<unknown> {
  const found = tools[name]
  if (!found?.execute) throw new Error(`the sub-agent has no ${name} tool`)
  return found.execute(input as never, call)
}

/**
 * The memory of Chromium and every process under it, bytes: the sum of their proportional set
 * sizes (a page several processes share counted once), and of their resident sets (counted
 * in each), for comparison.
 */
function chromiumMemory(pid: number | undefined): { pss: number; rss: number } {
  if (pid === undefined) return { pss: 0, rss: 0 }
  const pids = processTree(pid)
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0)
  return { pss: sum(proportionalBytes(pids)), rss: sum(residentBytes(pids)) }
}

async function browserAgents(count: number): Promise<Figure> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is not installed`)
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end(PAGE)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const root = await mkdtemp(path.join(tmpdir(), 'baton-bench-browser-'))
  // Generous: this measures how long 20 take on the machine, it does not hold them to a limit.
  const browser = createBrowserWorkspaceProvider({
    allowedOrigins: [origin],
    allowLoopback: true,
    toolTimeoutMs: 180_000,
  })
  try {
    // The shared browser first, warmed by one context that is then closed: what stays is
    // what every context shares.
    const warm = browser.create({ id: 'warm', directory: path.join(root, 'warm') })
    await run(warm.tools!(), 'open_page', { url: `${origin}/` })
    await warm.dispose?.()
    await new Promise((resolve) => setTimeout(resolve, 500))
    const shared = chromiumMemory(browser.browserPid)

    let begin = 0
    const firstRead: number[] = []
    // The tool calls a model would make, made by the runner so no model time is counted.
    const runner: SubagentRunner = {
      async run(turn) {
        await run(turn.tools, 'open_page', { url: `${origin}/` })
        await run(turn.tools, 'read_page', {})
        firstRead.push(Date.now() - begin)
        return { text: 'read', messages: [] }
      },
    }
    const supervisor = createSupervisor({
      agent: { ...delegatingAgent, tools: [...BROWSER_TOOL_NAMES] },
      budget: createBudget({ calls: count * 4 }, { name: 'bench' }),
      workspace: { kind: 'directory', root },
      workspaceProviders: { browser },
      runner,
    })
    const peak = { ...shared }
    const sample = () => {
      const now = chromiumMemory(browser.browserPid)
      peak.pss = Math.max(peak.pss, now.pss)
      peak.rss = Math.max(peak.rss, now.rss)
    }
    // Rarely: reading every process's smaps_rollup is work of its own (the kernel walks their
    // page tables), and the last sample, with every context still open, is the peak anyway.
    const sampler = setInterval(sample, 2000)
    begin = Date.now()
    for (let index = 0; index < count; index += 1) {
      supervisor.delegate(`read ${index}`, { workspace: 'browser' })
    }
    const reports = await supervisor.waitAgents()
    const wall = Date.now() - begin
    // Every context is still open (a done sub-agent keeps its browser until cleanup).
    sample()
    clearInterval(sampler)
    const failed = Object.values(reports ?? {}).filter((report) => report.status !== 'done')
    if (failed.length > 0)
      throw new Error(`${failed.length} ended ${failed[0]?.status}: ${failed[0]?.error}`)
    await supervisor.cleanup()
    firstRead.sort((a, b) => a - b)
    const median = firstRead[Math.floor(firstRead.length / 2)] ?? Number.NaN
    const perContext = (peak.pss - shared.pss) / MIB / count
    return {
      value: median,
      text: `${formatNumber(median)} (max ${formatNumber(firstRead.at(-1) ?? Number.NaN)}), ${formatNumber(perContext)} MiB PSS/context`,
      details: {
        agents: count,
        medianFirstReadMs: median,
        maxFirstReadMs: firstRead.at(-1) ?? Number.NaN,
        wallMs: wall,
        sharedBrowserPssMiB: shared.pss / MIB,
        peakChromiumPssMiB: peak.pss / MIB,
        mibPerContext: perContext,
        rssMibPerContext: (peak.rss - shared.rss) / MIB / count,
      },
    }
  } finally {
    await browser.close()
    server.closeAllConnections()
    server.close()
    await rm(root, { recursive: true, force: true })
  }
}

export const browserWorkspacesSubjects: Subjects = {
  baton: (size) => browserAgents(browserAgentsOf(size)),
}
