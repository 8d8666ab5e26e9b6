import { describe, expect, it } from 'vitest'
import { makeAgent } from './__fixtures__/agents'
import { parseAssignments } from './parse-assignments'
import type { ResolvedSwarmMember } from './types'

const member = (id: string, name?: string): ResolvedSwarmMember => ({
  agentId: id,
  role: 'worker',
  weight: 1,
  agent: makeAgent({ id, ...(name ? { name } : {}) }),
})

describe('parseAssignments', () => {
  const ana = member('ana')
  const ben = member('ben', 'Ben Writer')
  const cleo = member('cleo')

  it('reads sub-tasks by worker id or name from markdown lines, and gives the rest the task', () => {
    const plan = [
      'Plan:',
      '1. **ana**: collect the logs',
      '- Ben Writer: write: the summary',
      'Done.',
    ].join('\n')
    const assignments = parseAssignments({ plan, workers: [ana, ben, cleo], task: 'whole task' })
    expect(assignments.get(ana)).toBe('collect the logs')
    expect(assignments.get(ben)).toBe('write: the summary')
    expect(assignments.get(cleo)).toBe('whole task')
  })

  it('keeps the first line for a worker named twice', () => {
    const plan = '@ana: first\nana: second'
    expect(parseAssignments({ plan, workers: [ana], task: 't' }).get(ana)).toBe('first')
  })
})
