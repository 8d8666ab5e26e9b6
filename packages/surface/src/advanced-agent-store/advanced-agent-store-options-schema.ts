import { z } from 'zod'
import { hasMethods } from '../checks/has-methods'

/** What `createAdvancedAgentStore` accepts; checked when the store is made. */
export const AdvancedAgentStoreOptionsSchema = z.object({
  runner: z
    .custom(
      hasMethods('start', 'subscribe'),
      'must be a SwarmRunner (start and subscribe), e.g. createInProcessSwarmRunner from @baton/mal',
    )
    .optional(),
  swarms: z.array(z.unknown(), 'must be a list of swarms').optional(),
  maxEventsPerRun: z.number().int().min(2).optional(),
})
