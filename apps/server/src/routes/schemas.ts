import { z } from 'zod'
import { wholeNumberText } from '../settings/whole-number-text'

/** A 0x-prefixed hex signature. */
export const HexSignature = z
  .string()
  .regex(/^0x[0-9a-fA-F]+$/, 'must be a 0x-prefixed hex signature')
  .transform((value) => value as `0x${string}`)

/** 32 bytes of hex. */
export const Nonce = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of 0x-prefixed hex')
  .transform((value) => value as `0x${string}`)

/** The registry a signed change is for (32 bytes of hex; `GET /api/v1/runtime` says this server's). */
export const RegistryIdField = z
  .string()
  .regex(
    /^0x[0-9a-fA-F]{64}$/,
    'must be the registry id (GET /api/v1/runtime): 32 bytes of 0x-prefixed hex',
  )
  .transform((value) => value as `0x${string}`)

/** Unix seconds. */
export const Deadline = z.number().int().positive()

export const Page = z.object({
  limit: wholeNumberText(z.number().int().min(1).max(200).default(50)),
  offset: wholeNumberText(z.number().int().min(0).default(0)),
})

/** The one error shape of every route. */
export const ErrorResponse = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
})

export const WalletParams = z.object({ wallet: z.string().describe('a wallet, any case') })
export const IdParams = z.object({ id: z.string().min(1) })
