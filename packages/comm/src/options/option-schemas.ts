import { z } from 'zod'

// Shared pieces of the options schemas: options objects carry callbacks and live objects
// (rails, guards, clients) that zod can only check by shape.

/** A function, named in errors as `expected a function`. */
export const FunctionOption = z.custom<(...args: never[]) => unknown>(
  (value) => typeof value === 'function',
  { message: 'expected a function' },
)

/** A whole number of at least `min`. */
export function wholeNumber(min: number) {
  return z
    .number()
    .int(`expected a whole number ≥ ${min}`)
    .min(min, `expected a whole number ≥ ${min}`)
}

/** A count or a duration that must be positive. */
export const PositiveWhole = wholeNumber(1)

/** Options of any loop guard. */
export const LoopGuardSettings = z.object({ maxHops: wholeNumber(0).optional() })

/** `url` or a borrowed ioredis client, exactly one of them. */
export const RedisConnectionSettings = z
  .object({
    url: z
      .string()
      .regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL')
      .optional(),
    redis: z
      .custom<object>((value) => typeof value === 'object' && value !== null, {
        message: 'expected an ioredis client',
      })
      .optional(),
  })
  .refine((value) => (value.url === undefined) !== (value.redis === undefined), {
    message: 'give exactly one of `url` and `redis`',
  })
