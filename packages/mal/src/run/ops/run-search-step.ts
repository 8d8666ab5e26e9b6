import { BatonError } from '@baton/core'
import type { AgentMatch } from '../../discovery'
import { DiscoveryUnavailableError } from '../../discovery/discovery-errors'
import { searchModelCatalog } from '../../discovery/search-model-catalog'
import { searchToolSet } from '../../discovery/search-tool-set'
import type { SearchStep } from '../../plan'
import { renderTemplate } from '../../template'
import type { StepContext, StepOutcome } from './step-context'

/**
 * Runs a `search_agents`, `search_tools` or `search_models` step through the run's lookup.
 * Nothing is charged. Every agent found is vouched for by the registry once more, so a lookup
 * that is behind (an agent revoked since it was indexed) never hands a revoked wallet on.
 *
 * @example
 * const { value } = await runSearchStep(context) // [{ wallet, name, description, capabilities, score }]
 */
export async function runSearchStep(context: StepContext<SearchStep>): Promise<StepOutcome> {
  const { step, budget, scope, services } = context
  const wallet = services.coordinatorWallet
  const render = (text: string | undefined) =>
    text === undefined ? undefined : renderTemplate(text, scope)
  const signal = budget.signal
  const discovery = services.discovery ?? {}
  budget.throwIfAborted()
  switch (step.op) {
    case 'search_agents': {
      if (!discovery.searchAgents) {
        throw new DiscoveryUnavailableError({
          op: step.op,
          reason:
            'the run has no agent lookup (pass discovery, e.g. createStaticDiscovery({ agents }))',
        })
      }
      const capability = render(step.capability)
      const type = render(step.type)
      const found = await lookup(step.op, () =>
        discovery.searchAgents!(
          {
            query: renderTemplate(step.query, scope),
            ...(capability ? { capability } : {}),
            ...(type ? { type } : {}),
            ...(step.trustTier ? { trustTier: step.trustTier } : {}),
            limit: step.limit,
          },
          { signal },
        ),
      )
      return { value: await vouched(found, context), wallet }
    }
    case 'search_tools': {
      const query = { query: renderTemplate(step.query, scope), limit: step.limit }
      const value = discovery.searchTools
        ? await lookup(step.op, () => discovery.searchTools!(query, { signal }))
        : searchToolSet(runTools(context), query)
      return { value, wallet }
    }
    case 'search_models': {
      const text = render(step.query)
      const capability = render(step.capability)
      const provider = render(step.provider)
      const query = {
        ...(text ? { query: text } : {}),
        ...(capability ? { capability } : {}),
        ...(provider ? { provider } : {}),
        ...(step.maxOutputPerMTok === undefined ? {} : { maxOutputPerMTok: step.maxOutputPerMTok }),
        limit: step.limit,
      }
      if (discovery.searchModels) {
        return {
          value: await lookup(step.op, () => discovery.searchModels!(query, { signal })),
          wallet,
        }
      }
      const models = services.models()
      const source = {
        providers: models.providers(),
        ...(models.prices ? { prices: models.prices } : {}),
      }
      return { value: searchModelCatalog(source, query), wallet }
    }
  }
}

async function lookup<T>(op: string, search: () => Promise<T>): Promise<T> {
  try {
    return await search()
  } catch (error) {
    if (BatonError.isInstance(error)) throw error
    const reason = error instanceof Error ? error.message : String(error)
    throw new DiscoveryUnavailableError({
      op,
      reason: `the lookup failed: ${reason}`,
      cause: error,
    })
  }
}

function runTools(context: StepContext<SearchStep>) {
  const { services } = context
  const tools: Record<string, { description?: string | undefined }> = {}
  for (const name of services.toolRegistry?.names() ?? []) {
    const tool = services.toolRegistry?.get(name)
    if (tool) tools[name] = tool
  }
  Object.assign(tools, services.tools)
  return tools
}

// Unregistered (revoked, never registered) agents are dropped; an unreachable registry fails
// the step, as it would fail the `delegate` that follows.
async function vouched(
  found: AgentMatch[],
  context: StepContext<SearchStep>,
): Promise<AgentMatch[]> {
  const { registry } = context.services
  const checked = await Promise.all(
    found.map(async (match) => {
      try {
        await registry.ensureRegisteredAgent(match.wallet, { signal: context.budget.signal })
        return match
      } catch (error) {
        if (BatonError.isInstance(error) && error.code === 'UNREGISTERED_AGENT') return undefined
        throw error
      }
    }),
  )
  return checked.filter((match): match is AgentMatch => match !== undefined)
}
