import { z } from 'zod'
import { hasMethods } from '../checks/has-methods'

/** What `createDelegation` accepts; checked when it is made, not on the first mention. */
export const DelegationOptionsSchema = z.object({
  agents: z.custom(hasMethods('getState'), 'must be an agent store (createAgentStore)'),
  swarms: z.custom(hasMethods('getState'), 'must be a swarm store (createAdvancedAgentStore)'),
  comm: z.custom(
    (value) => hasMethods('send', 'forward')(value) || hasMethods('getState')(value),
    'must be a message bus or a communication store (createCommunicationStore)',
  ),
})
