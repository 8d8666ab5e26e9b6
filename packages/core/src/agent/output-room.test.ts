import { describe, expect, it } from 'vitest'
import { outputRoom } from './output-room'

const price = { inputPerMTok: 0.1, outputPerMTok: 0.4 }
const left = (costUsd: number) => ({ calls: 5, tokens: Infinity, costUsd, wallMs: Infinity })

describe('outputRoom', () => {
  it('fits a call into a budget of exactly what it costs', () => {
    // 6 input tokens ($6e-7) and 1 output token ($4e-7) cost exactly $1e-6.
    expect(outputRoom({ left: left(0.000001), price, inputEstimate: 6 })).toBe(1)
  })

  it('leaves no room when no call is left, or the prompt alone costs more than the money', () => {
    expect(outputRoom({ left: { ...left(1), calls: 0 }, price, inputEstimate: 6 })).toBe(0)
    expect(outputRoom({ left: left(0.0000005), price, inputEstimate: 6 })).toBe(0)
  })
})
