import { BatonError } from '@baton/core'

/** A `cond` / `while` expression that does not parse. */
export class ConditionSyntaxError extends BatonError {
  override name = 'ConditionSyntaxError'
  readonly offset: number
  constructor(options: { condition: string; offset: number; reason: string }) {
    super(
      'CONDITION_SYNTAX',
      `Malformed condition at character ${options.offset + 1} of "${options.condition}": ${options.reason}.`,
      { details: options },
    )
    this.offset = options.offset
  }
}

/** A comparison between values that cannot be ordered (e.g. a number and an object). */
export class ConditionTypeError extends BatonError {
  override name = 'ConditionTypeError'
  constructor(options: { condition: string; reason: string }) {
    super('CONDITION_TYPE', `Cannot evaluate "${options.condition}": ${options.reason}.`, {
      details: options,
    })
  }
}
