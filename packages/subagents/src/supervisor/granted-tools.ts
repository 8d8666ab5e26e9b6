import type { Agent } from '@baton/core'
import type { ToolSet } from 'ai'
import { createFileTools } from '../workspace/create-file-tools'
import type { Workspace } from '../workspace/types'
import { createDelegationTools } from './create-delegation-tools'
import type { Supervisor } from './types'

/**
 * The tools an agent's card lets it have: the workspace's file tools and its kind's own tools
 * only as the card's `tools` lists them, and the delegation tools only when its
 * `agentCard.canDelegate` is true. A task agent whose card lists nothing gets none of them.
 *
 * @example
 * grantedTools({ agent: { ...agent, tools: ['read_file'] }, workspace, supervisor }) // { read_file }
 */
export function grantedTools(options: {
  agent: Pick<Agent, 'tools'> & { agentCard?: { canDelegate?: boolean } }
  workspace: Workspace
  supervisor: Supervisor
}): ToolSet {
  const { agent, workspace, supervisor } = options
  const listed = new Set(agent.tools ?? [])
  const offered: ToolSet = { ...createFileTools(workspace), ...workspace.tools?.() }
  const granted: ToolSet = {}
  for (const [name, tool] of Object.entries(offered)) if (listed.has(name)) granted[name] = tool
  return agent.agentCard?.canDelegate
    ? { ...granted, ...createDelegationTools(supervisor) }
    : granted
}
