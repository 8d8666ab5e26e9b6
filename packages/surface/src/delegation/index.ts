export { createDelegation } from './create-delegation'
export type {
  CreateDelegationOptions,
  Delegation,
  DelegationMessenger,
  DelegationResult,
  DelegationRoute,
} from './types'
