import type { Agent } from '../schemas'

/**
 * The card a runtime passes to `runAgent` when it grants tools of its own (`extraTools`): the
 * agent with those names added to its `tools`, so the card records every tool the run may
 * bind. `runAgent` binds an extra only when the card lists it. The agent itself is returned
 * when it lists them all already, so a frozen (cached) card stays the one that was checked.
 *
 * @example
 * const extraTools = supervisor.tools()
 * await runAgent(grantTools(agent, Object.keys(extraTools)), task, { budget, extraTools })
 */
export function grantTools<A extends Pick<Agent, 'tools'>>(agent: A, names: readonly string[]): A {
  const listed = agent.tools ?? []
  const added = names.filter(
    (name, index) => !listed.includes(name) && names.indexOf(name) === index,
  )
  if (added.length === 0) return agent
  return { ...agent, tools: [...listed, ...added] }
}
