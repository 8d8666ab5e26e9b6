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
  /** The workspace kind's own tools, when the caller has asked for them already. */
  own?: ToolSet | undefined
}): ToolSet {
  const { agent, workspace, supervisor } = options
  return composeGrant({
    agent,
    files: () => createFileTools(workspace),
    own: 'own' in options ? options.own : workspace.tools?.(),
    // The same for every turn of one supervisor: made once.
    delegation: () => {
      let delegation = delegationTools.get(supervisor)
      if (!delegation) {
        delegation = createDelegationTools(supervisor)
        delegationTools.set(supervisor, delegation)
      }
      return delegation
    },
  })
}

const delegationTools = new WeakMap<Supervisor, ToolSet>()

/**
 * The grant itself, from the tools on offer, in the order the card records it: the listed
 * names a workspace kind's own tools (first) or the file tools provide, then the delegation
 * tools when the card may delegate. The bound tools of one sub-agent and the tools a tree
 * shares (`sharedTurnTools`) are both made here, so the two grant alike.
 *
 * @example
 * composeGrant({ agent, files: () => createFileTools(workspace), delegation: () => tools }) // { read_file, ..., delegate_agent, ... }
 */
export function composeGrant(options: {
  agent: Pick<Agent, 'tools'> & { agentCard?: { canDelegate?: boolean } }
  files: () => ToolSet
  own?: ToolSet | undefined
  delegation: () => ToolSet
}): ToolSet {
  const { agent, own } = options
  // One object, filled in place: the sets it is made of are not copied into each other.
  const granted: ToolSet = {}
  const listed = agent.tools ?? []
  if (listed.length > 0) {
    // A kind's own tool of the same name takes the place of a file tool.
    const files = options.files()
    for (const name of listed) {
      const offered =
        own && Object.hasOwn(own, name)
          ? own[name]
          : Object.hasOwn(files, name)
            ? files[name]
            : undefined
      if (offered) granted[name] = offered
    }
  }
  if (!agent.agentCard?.canDelegate) return granted
  const delegation = options.delegation()
  for (const name in delegation) granted[name] = delegation[name]!
  return granted
}
