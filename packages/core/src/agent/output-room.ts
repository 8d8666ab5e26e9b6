import type { Remaining } from '../budget/create-budget'
import type { ModelPrice } from '../models/types'
import { toUsdUnits } from '../money/usd-units'

/**
 * How many output tokens the calls, tokens and money left can pay for once the prompt is paid.
 * A prompt that alone costs more than the money left leaves no room, even at a free output price.
 */
export function outputRoom(options: {
  left: Remaining
  price: ModelPrice
  inputEstimate: number
}): number {
  const { left, price, inputEstimate } = options
  // No call left means no room, whatever the tokens and money: the caller waits or refuses.
  if (left.calls < 1) return 0
  let room = Infinity
  if (Number.isFinite(left.tokens)) room = Math.floor(left.tokens - inputEstimate)
  if (Number.isFinite(left.costUsd)) {
    // In the budget's exact units: a budget of exactly what a call costs must fit that call,
    // which float division misses by a hair (0.39999999999999997 / 0.4 is not 1).
    const afterInput =
      toUsdUnits(left.costUsd) - toUsdUnits((inputEstimate * price.inputPerMTok) / 1_000_000)
    if (afterInput < 0n) return 0
    const perToken = toUsdUnits(price.outputPerMTok / 1_000_000)
    if (perToken > 0n) room = Math.min(room, Number(afterInput / perToken))
  }
  return room
}
