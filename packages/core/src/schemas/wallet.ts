import { z } from 'zod'
import { parseWallet, type Wallet as WalletAddress } from '../wallet/parse-wallet'

/** A wallet address; parses any-case hex and outputs the EIP-55 form. */
export const Wallet = z.string().transform((value, context): WalletAddress => {
  try {
    return parseWallet(value)
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message })
    return z.NEVER
  }
})
export type Wallet = z.output<typeof Wallet>
