import { TemplateSyntaxError } from './template-errors'

/** One `{{...}}` reference: a root name and a path into its value. */
export type TemplateReference = {
  /** The reference as written, without braces or surrounding spaces. */
  source: string
  root: string
  path: (string | number)[]
  /** Where `{{` starts in the template. */
  offset: number
}

export type TemplatePart =
  | { kind: 'text'; text: string }
  | ({ kind: 'reference' } & TemplateReference)

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*/
const KEY = /^[A-Za-z0-9_-]+/

/**
 * Splits a template into text and references. `{{ name.path[0].field }}` reads a value;
 * nothing inside the braces is evaluated.
 *
 * @example
 * parseTemplate('Hi {{inputs.user.name}}!')
 * // [{ kind: 'text', text: 'Hi ' }, { kind: 'reference', root: 'inputs', path: ['user', 'name'], ... }, { kind: 'text', text: '!' }]
 */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = []
  let cursor = 0
  while (cursor < template.length) {
    const open = template.indexOf('{{', cursor)
    if (open === -1) {
      parts.push({ kind: 'text', text: template.slice(cursor) })
      break
    }
    if (open > cursor) parts.push({ kind: 'text', text: template.slice(cursor, open) })
    const close = template.indexOf('}}', open + 2)
    if (close === -1) {
      throw new TemplateSyntaxError({ template, offset: open, reason: '"{{" is never closed' })
    }
    const source = template.slice(open + 2, close).trim()
    parts.push({ kind: 'reference', ...parseReference(source, { template, offset: open }) })
    cursor = close + 2
  }
  return parts
}

/**
 * Every reference in a template, in order.
 *
 * @example
 * findReferences('{{a}} and {{inputs.b[0]}}').map((reference) => reference.source) // ['a', 'inputs.b[0]']
 */
export function findReferences(template: string): TemplateReference[] {
  return parseTemplate(template).flatMap((part) =>
    part.kind === 'reference'
      ? [{ source: part.source, root: part.root, path: part.path, offset: part.offset }]
      : [],
  )
}

function parseReference(
  source: string,
  where: { template: string; offset: number },
): TemplateReference {
  const fail = (reason: string): never => {
    throw new TemplateSyntaxError({ ...where, reason })
  }
  if (source === '') fail('the braces are empty')
  const root = NAME.exec(source)?.[0]
  if (!root) fail(`"${source}" must start with a name`)
  const path: (string | number)[] = []
  let rest = source.slice(root!.length)
  while (rest.length > 0) {
    if (rest.startsWith('.')) {
      const key = KEY.exec(rest.slice(1))?.[0]
      if (!key) fail(`"${source}" has a "." not followed by a field name`)
      path.push(key!)
      rest = rest.slice(1 + key!.length)
      continue
    }
    const index = /^\[(\d+)\]/.exec(rest)
    if (index) {
      path.push(Number(index[1]))
      rest = rest.slice(index[0].length)
      continue
    }
    const quoted = /^\[(?:"([^"]*)"|'([^']*)')\]/.exec(rest)
    if (quoted) {
      path.push(quoted[1] ?? quoted[2] ?? '')
      rest = rest.slice(quoted[0].length)
      continue
    }
    fail(`"${source}" is not a path like name.field[0].other (code is never evaluated)`)
  }
  return { source, root: root!, path, offset: where.offset }
}
