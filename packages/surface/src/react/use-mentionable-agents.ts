import type { Agent } from '@baton/core'
import { useMemo } from 'react'
import { listMentionableAgents } from '../mentions/list-mentionable-agents'
import { useAdvancedAgentStore } from './use-advanced-agent-store'
import { useAgentStore } from './use-agent-store'

/**
 * The agents and swarms (as agents) a person can @mention, for `parseMentions` and pickers.
 *
 * @example
 * const mentionable = useMentionableAgents()
 * const { targets, task } = parseMentions(text, mentionable)
 */
export function useMentionableAgents(): Agent[] {
  const agents = useAgentStore((state) => state.agents)
  const swarms = useAdvancedAgentStore((state) => state.swarms)
  return useMemo(() => listMentionableAgents(agents, swarms), [agents, swarms])
}
