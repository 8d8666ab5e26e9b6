export { BudgetCancelledError, type BudgetDimension, BudgetExceededError } from './budget-errors'
export {
  type ChargeEvent,
  type ChargeInput,
  type ChargeOptions,
  type ChildOptions,
  type CreateBudgetOptions,
  createBudget,
  type Remaining,
  type Reservation,
  type Spend,
} from './create-budget'
