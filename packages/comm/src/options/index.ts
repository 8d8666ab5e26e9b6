export {
  FunctionOption,
  LoopGuardSettings,
  PositiveWhole,
  RedisConnectionSettings,
  wholeNumber,
} from './option-schemas'
