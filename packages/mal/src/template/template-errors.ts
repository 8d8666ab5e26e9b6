import { BatonError } from '@baton/core'

/** A `{{...}}` that is not a well-formed reference (unclosed, empty, bad path). */
export class TemplateSyntaxError extends BatonError {
  override name = 'TemplateSyntaxError'
  readonly offset: number
  constructor(options: { template: string; offset: number; reason: string }) {
    super(
      'TEMPLATE_SYNTAX',
      `Malformed template at character ${options.offset + 1} of "${options.template}": ${options.reason}.`,
      { details: options },
    )
    this.offset = options.offset
  }
}

/** A template whose reference has no value when the step runs. */
export class TemplateUnresolvedError extends BatonError {
  override name = 'TemplateUnresolvedError'
  constructor(options: { reference: string; reason: string }) {
    super('TEMPLATE_UNRESOLVED', `Template {{${options.reference}}} ${options.reason}.`, {
      details: options,
    })
  }
}
