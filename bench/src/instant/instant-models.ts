import { createModelRegistry, type ModelRegistry } from '@baton/core'
import { instantRegistryOptions } from '@baton/testing/instant-models'

/**
 * Baton's model registry with the instant model registered as the `instant` provider, the
 * way an application registers its own provider. One registry for the whole process, as a
 * host would keep it.
 *
 * @example
 * await runAgent(agent, 'hi', { budget, models: createInstantModels() })
 */
export function createInstantModels(): ModelRegistry {
  return createModelRegistry(instantRegistryOptions())
}
