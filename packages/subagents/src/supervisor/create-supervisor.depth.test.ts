import { existsSync } from 'node:fs'
import { readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createBudget } from '@baton/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { SubagentRunner } from '../runner/types'
import { directive, makeTempRoot } from './__fixtures__/helpers'
import { makeAgent } from './__fixtures__/make-agent'
import { createSupervisor } from './create-supervisor'
import type { SubagentTreeNode } from './types'

let root: string
let remove: () => Promise<void>
beforeEach(async () => ({ root, remove } = await makeTempRoot()))
afterEach(() => remove())

// Plays a model that, for `nest:<n>`, writes a file, delegates `nest:<n-1>` and waits for it.
const nestingRunner: SubagentRunner = {
  filesOnlyThroughTools: true,
  async run(turn) {
    const last = turn.messages.at(-1)
    const depth = Number(/nest:(\d+)/.exec(String(last?.content))?.[1] ?? 0)
    const context = { toolCallId: 'call', messages: [], abortSignal: turn.signal }
    await turn.tools.write_file?.execute?.({ path: 'level.txt', content: String(depth) }, context)
    if (depth > 0) {
      await turn.tools.delegate_agent?.execute?.({ task: `nest:${depth - 1}` }, context)
      await turn.tools.wait_agents?.execute?.({}, context)
    }
    return { text: `level ${depth} ok`, messages: [] }
  },
}

function deepest(nodes: SubagentTreeNode[]): SubagentTreeNode[] {
  const chain: SubagentTreeNode[] = []
  for (let level = nodes; level[0]; level = level[0].children) chain.push(level[0])
  return chain
}

describe('createSupervisor at depth', () => {
  it('keeps every directory flat under the root, so 120 levels all work and clean up', async () => {
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget: createBudget({}),
      runner: nestingRunner,
      maxDepth: 120,
    })
    const id = supervisor.delegate('nest:119')
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report).toMatchObject({ status: 'done', files: ['level.txt'] })
    const chain = deepest(supervisor.tree())
    expect(chain).toHaveLength(120)
    expect(chain.every((node) => node.status === 'done')).toBe(true)
    // Before, level 56 passed the 4096-character path limit; now each is one level below root.
    for (const node of chain) {
      expect(path.dirname(node.directory)).toBe(path.join(root, '.subagents'))
      expect(Buffer.byteLength(path.basename(node.directory))).toBeLessThanOrEqual(255)
    }
    expect(new Set(chain.map((node) => node.directory)).size).toBe(120)
    await supervisor.cleanup()
    expect(existsSync(path.join(root, '.subagents'))).toBe(false)
    expect(supervisor.tree()).toEqual([])
  })

  it('fails a sub-agent whose directory cannot be made, instead of a tool call that reads as fine', async () => {
    // A file where the sub-agent directories go: no directory can be made below it.
    await writeFile(path.join(root, '.subagents'), 'in the way')
    const supervisor = createSupervisor({
      agent: makeAgent(),
      workspace: { kind: 'directory', root },
      budget: createBudget({ calls: 10 }),
    })
    const id = supervisor.delegate(
      `Write it down ${directive('write_file', { path: 'notes.md', content: 'x' })}`,
    )
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/directory could not be made/),
    })
    // Liveness: a sub-agent that needs no file still works.
    const other = supervisor.delegate('Just answer')
    expect((await supervisor.waitAgents([other]))?.[other]?.status).toBe('done')
    expect(await readdir(root)).toEqual(['.subagents'])
  })
})
