import { type Agent, ValidationError } from '@baton/core'
import type { BatonServices } from '../services'

/**
 * Refuses a card this server could not run: a `model` whose provider is unknown or not
 * configured here, or `tools` it cannot grant (each named by its index), before anything is
 * stored.
 *
 * @example
 * await checkAgentCard(app.baton, agent) // throws ValidationError naming `agent.tools[2]`
 */
export async function checkAgentCard(
  services: Pick<BatonServices, 'models' | 'tools'>,
  agent: Partial<Pick<Agent, 'model' | 'tools'>>,
): Promise<void> {
  const issues: { path: string; message: string }[] = []
  // What a change leaves out is not checked again (a stored card stays changeable).
  const provider = agent.model?.split(':')[0] ?? ''
  const configured = services.models.providers()
  if (agent.model !== undefined && !configured.includes(provider)) {
    issues.push({
      path: 'model',
      message: `provider "${provider}" is not configured on this server (configured: ${configured.join(', ')}; see GET /api/v1/models)`,
    })
  }
  if (agent.tools) issues.push(...(await services.tools.check(agent.tools)))
  if (issues.length > 0) throw new ValidationError('agent', issues)
}
