import { parseWallet, type Wallet } from '../wallet/parse-wallet'
import { UnregisteredAgentError } from './unregistered-agent-error'

/**
 * The wallet a look-up is keyed by. A missing wallet is a caller that never registered (so
 * `UnregisteredAgentError`); anything else must parse, before any request is made.
 */
export function registryWallet(input: unknown): Wallet {
  if (input === undefined || input === null || (typeof input === 'string' && !input.trim())) {
    throw new UnregisteredAgentError({ wallet: '', reason: 'no wallet was given' })
  }
  if (typeof input !== 'string') return parseWallet(input)
  let wallet = parsed.get(input)
  if (wallet === undefined) {
    wallet = parseWallet(input)
    if (parsed.size >= 1024) parsed.clear()
    parsed.set(input, wallet)
  }
  return wallet
}

/** Checksumming hashes the address; a host looks up the same few wallets over and over. */
const parsed = new Map<string, Wallet>()
