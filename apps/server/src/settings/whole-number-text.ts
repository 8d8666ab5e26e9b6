import { z } from 'zod'

const WHOLE_NUMBER = /^[+-]?\d+$/

/**
 * A whole number written as text (a query string's `?limit=20`, an environment's
 * `PORT=8787`), read in decimal and then checked by `number`: text that is not one is refused
 * naming the text (`expected a whole number, got "abc"`). `z.coerce.number()`, which this
 * replaces, said `expected number, received NaN` for `abc` and `expected int, received number`
 * for `1.5`, and read `0x1f90` as 8080 and `1e3` as 1000. A value that is already a number
 * (a default, a test's settings) is checked as it is.
 *
 * @example
 * wholeNumberText(z.number().int().min(1).max(200).default(50)).parse('20') // 20
 * wholeNumberText(z.number().int().min(1)).parse('1.5') // throws: expected a whole number, got "1.5"
 *
 * The default goes inside, on `number`: there the OpenAPI document shows it.
 */
export function wholeNumberText<Out extends z.ZodType<number>>(number: Out) {
  return z.preprocess((value, context) => {
    if (typeof value !== 'string') return value
    const text = value.trim()
    if (WHOLE_NUMBER.test(text)) return Number(text)
    context.issues.push({
      code: 'custom',
      message: `expected a whole number, got ${JSON.stringify(value.slice(0, 40))}`,
      input: value,
    })
    return z.NEVER
  }, number)
}
