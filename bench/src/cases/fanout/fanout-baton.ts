import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createBudget } from '@baton/core'
import { createSupervisor } from '@baton/subagents'
import { delegatingAgent } from '../../fixtures'
import { createInstantModels } from '../../instant'
import type { Size } from '../types'
import { measureFanOut } from './fanout-measure'

/** N sub-agents of one supervisor, each in a directory of its own, waited for together. */
export function subject(size: Size) {
  const models = createInstantModels()
  return measureFanOut(size, async (width) => {
    const root = await mkdtemp(path.join(tmpdir(), 'baton-bench-fanout-'))
    const supervisor = createSupervisor({
      agent: delegatingAgent,
      workspace: { kind: 'directory', root },
      budget: createBudget(),
      models,
    })
    const ids = Array.from({ length: width }, (_, index) => supervisor.delegate(`Part ${index}`))
    const reports = (await supervisor.waitAgents(ids)) ?? {}
    return {
      done: Object.values(reports).filter((report) => report.status === 'done').length,
      async cleanup() {
        await supervisor.cleanup()
        await rm(root, { recursive: true, force: true })
      },
    }
  })
}
