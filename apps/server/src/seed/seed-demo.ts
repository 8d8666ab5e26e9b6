import { Agent, AgentSwarm, parseWith } from '@baton/core'
import type { BatonServices } from '../services'
import { demoPlans } from './demo-plans'

const creator = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'

const demoAgents = [
  {
    id: 'orchestrator',
    wallet: '0x4444444444444444444444444444444444444444',
    name: 'Ops Orchestrator',
    type: 'orchestrator',
    description: 'Splits work and delegates it to the team.',
    capabilities: ['planning', 'delegation'],
    agentCard: {
      tagline: 'Delegates to the team',
      canDelegate: true,
      trustTier: 'medium',
      capabilityDescription:
        'Splits a request into parts and hands them on: asks the Incident Analyst (ask_peer, over the bus) and runs the Reviewer as a sub-agent (start_subagent, from its own budget), then puts their answers together. Both tools are granted because its card says canDelegate.',
      // The offline model follows [[tool:…]] directives: this example makes it delegate for real.
      examples: [
        'review yesterday\'s incidents [[tool:ask_peer {"agentId":"analyst","content":"List the risks in yesterday\'s incidents, most severe first"}]] [[tool:start_subagent {"agentId":"reviewer","task":"Check the risk list of yesterday\'s incidents for mistakes"}]]',
        'plan the release of version 2 [[tool:ask_peer {"agentId":"analyst","content":"What does the release of version 2 touch?"}]]',
      ],
    },
  },
  {
    id: 'analyst',
    wallet: '0x1111111111111111111111111111111111111111',
    name: 'Incident Analyst',
    type: 'specialist',
    description: 'Reads incidents and changes and lists what they touch.',
    capabilities: ['analysis'],
    // File tools, granted where it works in a workspace (a `task` or a sub-agent); elsewhere
    // (a message, a `delegate`, a swarm call) the server runs it without them.
    tools: ['read_file', 'list_files'],
    persona: 'You list concrete risks, most severe first.',
    agentCard: {
      tagline: 'Finds risks',
      trustTier: 'medium',
      capabilityDescription:
        'Reads an incident, a change or a plan and lists what it touches and what could go wrong, most severe first.',
      examples: ['what could go wrong if we ship the billing change on Friday?'],
    },
  },
  {
    id: 'reviewer',
    wallet: '0x2222222222222222222222222222222222222222',
    name: 'Reviewer',
    type: 'reviewer',
    description: 'Reviews work for mistakes.',
    capabilities: ['review'],
    // File tools, granted where it works in a workspace (a `task` or a sub-agent); elsewhere
    // (a message, a `delegate`, a swarm call) the server runs it without them.
    tools: ['read_file', 'list_files'],
    agentCard: {
      tagline: 'Reviews work',
      capabilityDescription:
        'Reads a piece of work (a diff, a plan, a list of risks) and says what is wrong or missing in it, and whether it would approve it.',
      examples: ['look at this diff: the retry loop never backs off'],
    },
  },
  {
    id: 'tester',
    wallet: '0x3333333333333333333333333333333333333333',
    name: 'Tester',
    type: 'worker',
    description: 'Says which tests cover a change.',
    capabilities: ['testing'],
    // File tools, granted where it works in a workspace (a `task` or a sub-agent); elsewhere
    // (a message, a `delegate`, a swarm call) the server runs it without them.
    tools: ['read_file', 'list_files', 'write_file'],
    agentCard: {
      tagline: 'Tests changes',
      capabilityDescription:
        'Says which tests cover a change, which are missing, and what to run before shipping it.',
      examples: ['which tests cover the new refund endpoint?'],
    },
  },
] as const

const demoSwarm = {
  id: 'dev-team',
  name: 'Dev team',
  description:
    'The orchestrator leads; the analyst works, the reviewer criticises, the tester tests.',
  strategy: 'hierarchical',
  agents: [
    { agentId: 'orchestrator', role: 'leader' },
    { agentId: 'analyst', role: 'worker' },
    { agentId: 'tester', role: 'specialist' },
    { agentId: 'reviewer', role: 'critic' },
  ],
}

export type SeedResult = { created: boolean; agents: string[]; swarm: string; plans: string[] }

/**
 * Seeds the demo on an empty database: four agents on the offline model, the `dev-team`
 * swarm and the example plans. Idempotent: what exists is left as it is.
 *
 * @example
 * const { created } = await seedDemo(app.baton)
 */
export async function seedDemo(services: BatonServices): Promise<SeedResult> {
  const { agents, swarms, plans } = services.repositories
  const stamp = new Date().toISOString()
  let created = false
  for (const input of demoAgents) {
    const agent = parseWith(
      Agent,
      { ...input, creator, model: 'offline:default', createdAt: stamp, updatedAt: stamp },
      'demo agent',
      { unknownKeys: 'refuse' },
    )
    if (await agents.exists(agent.wallet)) continue
    await agents.insert(agent, 'seed')
    // The operator seeds them: their tiers are the operator's grant, not a registrant's claim.
    await agents.grantTrustTier(agent.wallet, agent.agentCard.trustTier)
    created = true
  }
  const swarm = parseWith(AgentSwarm, demoSwarm, 'demo swarm', { unknownKeys: 'refuse' })
  if (await swarms.insert(swarm)) created = true
  for (const plan of demoPlans) {
    if (await plans.save(plan)) created = true
  }
  return {
    created,
    agents: demoAgents.map((agent) => agent.id),
    swarm: swarm.id,
    plans: demoPlans.map((plan) => plan.id),
  }
}
