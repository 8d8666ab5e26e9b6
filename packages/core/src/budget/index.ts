export { BudgetCancelledError, type BudgetDimension, BudgetExceededError } from './budget-errors'
export {
  type ChargeEvent,
  type ChargeInput,
  type ChargeOptions,
  type CreateBudgetOptions,
  createBudget,
  type Remaining,
  type Reservation,
  type Spend,
} from './create-budget'
