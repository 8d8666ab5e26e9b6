export { ConditionSyntaxError, ConditionTypeError } from './condition-errors'
export { evaluateCondition, truthy } from './evaluate-condition'
export { type ConditionNode, conditionReferences, parseCondition } from './parse-condition'
export {
  type ComparisonOperator,
  type ConditionToken,
  tokenizeCondition,
} from './tokenize-condition'
