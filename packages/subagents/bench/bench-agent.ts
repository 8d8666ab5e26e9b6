import { Agent } from '@baton/core'

/** The caller the benchmarks delegate from: an orchestrator on the offline model that may delegate. */
export const benchAgent = Agent.parse({
  id: 'bench-lead',
  wallet: '0x52908400098527886E0F7030069857D2E4169EE7',
  creator: '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  name: 'Bench Lead',
  type: 'orchestrator',
  model: 'offline:default',
  maxIterations: 20,
  tools: ['read_file', 'write_file', 'list_files'],
  agentCard: { canDelegate: true },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
})
