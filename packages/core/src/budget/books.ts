import { ValidationError } from '../errors/baton-error'
import { fromUsdUnits, MAX_USD, toUsdUnits } from '../money/usd-units'
import { isWallet, parseWallet } from '../wallet/parse-wallet'
import type { ChargeInput, Spend } from './budget-types'

/**
 * Books in exact units: calls and tokens are whole numbers; money is a bigint of 1e-15 USD, so
 * no number of charges drifts, vanishes or overflows to `Infinity`.
 */
export type Books = { calls: number; tokens: number; cost: bigint }
export const zero = (): Books => ({ calls: 0, tokens: 0, cost: 0n })
export const toPublic = (books: Books): Spend => ({
  calls: books.calls,
  tokens: books.tokens,
  costUsd: fromUsdUnits(books.cost),
})

/** Checksumming hashes the address; a run charges the same few wallets over and over. */
const walletKeys = new Map<string, string>()

/** Any-case spellings of one wallet attribute to one (EIP-55) key; other labels stay as given. */
export function walletKey(wallet: string): string {
  let key = walletKeys.get(wallet)
  if (key === undefined) {
    key = isWallet(wallet) ? parseWallet(wallet) : wallet
    if (walletKeys.size >= 1024) walletKeys.clear()
    walletKeys.set(wallet, key)
  }
  return key
}

const WHOLE = 'must be a whole number ≥ 0'

/** A charge as exact books; bad input is a `ValidationError` naming every bad field. */
export function toBooks(usage: ChargeInput): { books: Books; spend: Spend } {
  const calls = usage.calls ?? 0
  const input = usage.inputTokens ?? 0
  const output = usage.outputTokens ?? 0
  const tokens = usage.tokens ?? input + output
  const costUsd = usage.costUsd ?? 0
  if (
    !isCount(calls) ||
    !isCount(input) ||
    !isCount(output) ||
    !isCount(tokens) ||
    !(costUsd >= 0 && costUsd <= MAX_USD)
  ) {
    throw new ValidationError('usage', usageIssues(usage))
  }
  const cost = toUsdUnits(costUsd)
  return { books: { calls, tokens, cost }, spend: { calls, tokens, costUsd: fromUsdUnits(cost) } }
}

const isCount = (value: number) => Number.isSafeInteger(value) && value >= 0

function usageIssues(usage: ChargeInput): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = []
  const keys =
    usage.tokens === undefined
      ? (['calls', 'inputTokens', 'outputTokens'] as const)
      : (['calls', 'tokens'] as const)
  for (const key of keys) {
    if (!isCount(usage[key] ?? 0)) issues.push({ path: key, message: WHOLE })
  }
  const sum = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)
  if (usage.tokens === undefined && issues.length === 0 && !isCount(sum)) {
    issues.push({ path: 'tokens', message: 'inputTokens + outputTokens must be a safe integer' })
  }
  const costUsd = usage.costUsd ?? 0
  if (!(costUsd >= 0 && costUsd <= MAX_USD)) {
    issues.push({ path: 'costUsd', message: `must be a number of USD from 0 to ${MAX_USD}` })
  }
  return issues
}

/** Adds `books` to `target` (or takes them away), in place. */
export function add(target: Books, books: Books, sign: 1 | -1): void {
  target.calls += sign * books.calls
  target.tokens += sign * books.tokens
  target.cost += sign === 1 ? books.cost : -books.cost
}
