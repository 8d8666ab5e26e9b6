// How the supervisor's own overhead grows: nested sub-agents (agent i delegates to i + 1) at
// depth 50 and 1000, and a fan-out of 1000 sub-agents, on a model that answers at once (through
// runAgent, and `-direct`: a runner that calls the tools itself, the supervisor alone). Each
// case runs in a process of its own, so its peak RSS is its own.
import { spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Agent, createBudget } from '@baton/core'
import { createSupervisor } from '@baton/subagents'
import { instantModelRegistry } from '@baton/testing/instant-models'
import { createInstantRunner } from './instant-runner'

const CASES = [
  'nested-50',
  'nested-1000',
  'fanout-1000',
  'nested-50-direct',
  'nested-1000-direct',
  'fanout-1000-direct',
] as const
type Case = (typeof CASES)[number]

const agent = Agent.parse({
  id: 'bench-lead',
  wallet: '0x52908400098527886E0F7030069857D2E4169EE7',
  creator: '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  name: 'Bench Lead',
  type: 'orchestrator',
  model: 'instant:ok',
  maxIterations: 5,
  agentCard: { canDelegate: true },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
})

async function run(which: Case): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'baton-scale-'))
  const [kind, size, mode] = which.split('-') as ['nested' | 'fanout', string, string?]
  const count = Number(size)
  // `direct`: the instant model played by a runner that calls the tools itself (no runAgent),
  // so the figure is the supervisor's own overhead.
  const runner = mode === 'direct' ? { runner: createInstantRunner() } : {}
  const supervisor = createSupervisor({
    agent,
    workspace: { kind: 'directory', root },
    budget: createBudget({}),
    models: instantModelRegistry({ nested: true }),
    maxDepth: count + 1,
    ...runner,
  })
  // Warm up (module loading, JIT) on a supervisor of its own, so the figures are the supervisor's.
  const warmUp = createSupervisor({
    agent,
    workspace: { kind: 'directory', root: path.join(root, 'warm-up') },
    budget: createBudget({}),
    models: instantModelRegistry({ nested: true }),
    ...runner,
  })
  await warmUp.waitAgents([warmUp.delegate('nest:2')])
  await warmUp.cleanup()
  const rssBefore = process.resourceUsage().maxRSS
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  let status: string
  if (kind === 'nested') {
    const id = supervisor.delegate(`nest:${count - 1}`)
    status = (await supervisor.waitAgents([id]))?.[id]?.status ?? 'paused'
  } else {
    const ids = Array.from({ length: count }, (_, index) => supervisor.delegate(`part ${index}`))
    const reports = Object.values((await supervisor.waitAgents(ids)) ?? {})
    status = `${reports.filter((report) => report.status === 'done').length}/${count} done`
  }
  const elapsed = performance.now() - started
  // CPU time as well as wall time: on a machine shared with other work, wall time varies a lot.
  const cpu = process.cpuUsage(cpuBefore)
  const cpuMs = (cpu.user + cpu.system) / 1000
  const rssDelta = (process.resourceUsage().maxRSS - rssBefore) / 1024
  if (kind === 'nested') {
    // A run can look done while a level's delegation failed: count the levels really made.
    let levels = 0
    for (let nodes = supervisor.tree(); nodes.length > 0; nodes = nodes[0]?.children ?? []) {
      levels += 1
    }
    status = `${status}, ${levels}/${count} levels`
  }
  const cleanupStarted = performance.now()
  await supervisor.cleanup()
  const cleanupMs = performance.now() - cleanupStarted
  await rm(root, { recursive: true, force: true })
  const perLevel =
    kind === 'nested'
      ? ` | ${(elapsed / count).toFixed(3)} ms per level (CPU ${(cpuMs / count).toFixed(3)})`
      : ''
  return `${which}: ${status} | ${elapsed.toFixed(0)} ms (CPU ${cpuMs.toFixed(0)})${perLevel} | peak RSS Δ ${rssDelta.toFixed(1)} MiB | cleanup ${cleanupMs.toFixed(0)} ms`
}

const which = process.argv[2] as Case | undefined
if (which) {
  console.log(
    await run(which).catch((error: Error) => `${which}: failed: ${error.message.slice(0, 200)}`),
  )
} else {
  console.log('scale: supervisor overhead on a model that answers at once (one process per case)')
  for (const name of CASES) {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), name],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    )
    process.stdout.write(child.stdout)
  }
}
