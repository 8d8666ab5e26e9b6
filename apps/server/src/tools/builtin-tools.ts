import { workspaceKindTools } from '@baton/subagents'

/** A tool the server itself grants, and when. */
export type BuiltinTool = { name: string; description: string; grantedWhen: string }

const files = 'in a `task` step or a sub-agent, bounded to its workspace directory'
const delegation = 'to agents whose card says `canDelegate`'
const subagents = 'to sub-agents whose card says `canDelegate`'
const conclave = 'in runs and swarms with a conclave'

/** What the server grants of its own (the card must still list each one). */
export const builtinTools: readonly BuiltinTool[] = [
  { name: 'read_file', description: 'Reads a file of its workspace.', grantedWhen: files },
  { name: 'write_file', description: 'Writes a file of its workspace.', grantedWhen: files },
  { name: 'list_files', description: 'Lists the files of its workspace.', grantedWhen: files },
  {
    name: 'ask_peer',
    description: 'Asks a peer agent and waits for its answer.',
    grantedWhen: delegation,
  },
  { name: 'start_subagent', description: 'Runs a bounded sub-agent.', grantedWhen: delegation },
  { name: 'delegate_agent', description: 'Starts a sub-agent.', grantedWhen: subagents },
  { name: 'wait_agents', description: 'Waits for sub-agents.', grantedWhen: subagents },
  { name: 'send_agent', description: 'Sends a sub-agent a message.', grantedWhen: subagents },
  { name: 'cancel_agent', description: 'Cancels a sub-agent.', grantedWhen: subagents },
  { name: 'conclave_read', description: 'Reads a conclave key.', grantedWhen: conclave },
  { name: 'conclave_write', description: 'Writes a conclave key.', grantedWhen: conclave },
  { name: 'conclave_list', description: 'Lists conclave keys.', grantedWhen: conclave },
  { name: 'conclave_delete', description: 'Deletes a conclave key.', grantedWhen: conclave },
]

/**
 * The tools of the workspace kinds this server gives out (`browser`, `display`): a card may
 * list them once the kind is enabled (BATON_BROWSER_ORIGINS, BATON_DISPLAY_APPS); a tool two
 * kinds share (`screenshot`) is listed once.
 *
 * @example
 * workspaceTools(['browser']) // [{ name: 'open_page', ... }, ...]
 */
export function workspaceTools(kinds: readonly string[]): BuiltinTool[] {
  const kindsOf = new Map<string, string[]>()
  for (const kind of kinds) {
    for (const name of workspaceKindTools(kind) ?? []) {
      kindsOf.set(name, [...(kindsOf.get(name) ?? []), kind])
    }
  }
  return [...kindsOf].map(([name, of]) => ({
    name,
    description: `A tool of a ${of.join(' or ')} workspace.`,
    grantedWhen: `in a \`task\` step or a sub-agent with workspace: ${of.join(' or ')}`,
  }))
}
