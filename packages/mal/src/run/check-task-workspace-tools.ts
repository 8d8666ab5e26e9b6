import type { Agent } from '@baton/core'
import { workspaceKindTools } from '@baton/subagents'
import { TaskWorkspaceToolsError } from './run-errors'

/**
 * Refuses a task in a workspace kind (`browser`, `display`) whose tools the agent's card, as
 * `tools` narrows it, does not list: a browser or display it could not use would be started
 * for nothing. Called before anything is spent.
 *
 * @example
 * checkTaskWorkspaceTools({ agent, workspace: 'browser' }) // throws TASK_WORKSPACE_TOOLS_MISSING for a card without open_page, read_page, ...
 */
export function checkTaskWorkspaceTools(options: {
  agent: Pick<Agent, 'wallet' | 'tools'>
  workspace: string
  tools?: string[] | undefined
}): void {
  const { agent, workspace, tools } = options
  const needs = workspaceKindTools(workspace) ?? []
  const listed = (agent.tools ?? []).filter((name) => !tools || tools.includes(name))
  if (!needs.some((name) => listed.includes(name))) {
    throw new TaskWorkspaceToolsError({ wallet: agent.wallet, workspace, needs, listed })
  }
}
