import type { ResolvedSwarmMember } from './types'

/**
 * Reads a leader's plan as `<worker id or name>: <sub-task>` lines. A worker the plan does
 * not mention gets the whole task, so no worker is left idle by a loosely written plan.
 *
 * @example
 * parseAssignments({ plan: '- writer: draft the post', workers, task })
 * // Map { writer → 'draft the post', editor → task }
 */
export function parseAssignments(options: {
  plan: string
  workers: ResolvedSwarmMember[]
  task: string
}): Map<ResolvedSwarmMember, string> {
  const { plan, workers, task } = options
  const assignments = new Map<ResolvedSwarmMember, string>()
  for (const line of plan.split('\n')) {
    const match = /^[\s>#-]*(?:\d+[.)])?([^:]{1,120}):\s*(.+)$/.exec(line)
    if (!match) continue
    // Plans come in markdown: `**ana**:`, `@ana:`, `1. Ana:` all name the worker ana.
    const who = match[1]!
      .replace(/[*_`@]/g, '')
      .trim()
      .toLowerCase()
    const worker = workers.find(
      (candidate) =>
        candidate.agentId.toLowerCase() === who || candidate.agent.name.toLowerCase() === who,
    )
    if (worker && !assignments.has(worker)) assignments.set(worker, match[2]!.trim())
  }
  for (const worker of workers) if (!assignments.has(worker)) assignments.set(worker, task)
  return assignments
}
