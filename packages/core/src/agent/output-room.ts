import type { Remaining } from '../budget/create-budget'
import type { ModelPrice } from '../models/types'

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
    const afterInput = left.costUsd - (inputEstimate * price.inputPerMTok) / 1_000_000
    if (afterInput < 0) return 0
    if (price.outputPerMTok > 0) {
      room = Math.min(room, Math.floor((afterInput * 1_000_000) / price.outputPerMTok))
    }
  }
  return room
}
