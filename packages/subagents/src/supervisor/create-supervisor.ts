import { parseWith } from '@baton/core'
import { enabledAdapters } from '../adapters/enabled-adapters'
import { createAgentRunner } from '../runner/create-agent-runner'
import { createDirectoryWorkspace } from '../workspace/create-directory-workspace'
import { createSupervisorEventHub } from './supervisor-event-hub'
import { SupervisorNode } from './supervisor-node'
import { SupervisorOptionsSchema } from './supervisor-schemas'
import {
  NO_CHILDREN,
  NONE_OPEN,
  type SupervisorNodeState,
  type SupervisorTree,
} from './supervisor-state'
import type { CreateSupervisorOptions, Supervisor } from './types'

/**
 * Creates the delegation API of a running agent: sub-agents that work at the same time, each
 * in a workspace of its own and under a budget carved from the caller's.
 *
 * @example
 * const supervisor = createSupervisor({ agent, workspace: { kind: 'directory', root: './work' }, budget })
 * const id = supervisor.delegate('List the TODOs in src/ and report them as a list', { budget: { calls: 4 } })
 * const reports = await supervisor.waitAgents([id])
 * reports?.[id]?.result
 */
export function createSupervisor(options: CreateSupervisorOptions): Supervisor {
  const parsed = parseWith(SupervisorOptionsSchema, options, 'createSupervisor options')
  const workspace =
    'lend' in options.workspace
      ? options.workspace
      : createDirectoryWorkspace({ root: options.workspace.root })
  const runner = options.runner ?? createAgentRunner()
  const tree: SupervisorTree = {
    options,
    runner,
    filesOnlyThroughTools: runner.filesOnlyThroughTools === true,
    adapters: enabledAdapters(options.adapters),
    maxDepth: parsed.maxDepth,
    events: createSupervisorEventHub(),
    root: workspace.root,
    budgetName: options.budget.name,
    directories: 0,
    sharedTools: [],
    createNode: (state) => new SupervisorNode(state),
  }
  const root: SupervisorNodeState = {
    tree,
    depth: 0,
    ownerId: undefined,
    idPrefix: 'sub-',
    agent: options.agent,
    budget: options.budget,
    workspace,
    children: NO_CHILDREN,
    open: NONE_OPEN,
    changeListeners: undefined,
    count: 0,
    paused: false,
    supervisor: undefined as never,
  }
  return new SupervisorNode(root)
}
