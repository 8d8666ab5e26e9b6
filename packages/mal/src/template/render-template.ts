import { parseTemplate } from './parse-template'
import { resolveReference, type TemplateScope } from './template-scope'

/**
 * Renders a template to text. Strings are inserted as they are; other values as JSON.
 * A reference with no value throws a `TemplateUnresolvedError`.
 *
 * @example
 * renderTemplate('Review: {{inputs.request}}', { inputs: { request: 'ship it' }, values: {} }) // 'Review: ship it'
 */
export function renderTemplate(template: string, scope: TemplateScope): string {
  let text = ''
  for (const part of parseTemplate(template)) {
    if (part.kind === 'text') text += part.text
    else text += toText(resolveReference(scope, part))
  }
  return text
}

/**
 * Renders every string inside a value. A string that is exactly one template keeps the
 * referenced value's type (`"{{analysis}}"` may be an object); other strings become text.
 *
 * @example
 * renderValue({ id: '{{ticket.id}}', note: 'id {{ticket.id}}' }, { inputs: {}, values: { ticket: { id: 7 } } })
 * // { id: 7, note: 'id 7' }
 */
export function renderValue(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') {
    const parts = parseTemplate(value)
    const only = parts.length === 1 ? parts[0] : undefined
    if (only?.kind === 'reference') return resolveReference(scope, only)
    return renderTemplate(value, scope)
  }
  if (Array.isArray(value)) return value.map((item) => renderValue(item, scope))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, renderValue(item, scope)]),
    )
  }
  return value
}

/**
 * How a value reads inside text: strings as they are, everything else as JSON.
 *
 * @example
 * toText({ level: 3 }) // '{"level":3}'
 */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined) return ''
  return JSON.stringify(value)
}
