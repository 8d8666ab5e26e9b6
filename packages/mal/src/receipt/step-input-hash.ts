import { hashJson } from '@baton/core'
import { findReferences, lookupReference, type TemplateScope } from '../template'

function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value)
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, into)
  else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) stringsOf(item, into)
  }
  return into
}

/**
 * The hash of what a step was given: the step as the plan wrote it, and the value of each
 * `{{reference}}` its templates read, as the run had saved it when the step started.
 *
 * @example
 * stepInputHash({ op: 'stop', output: '{{a}}' }, { inputs: {}, values: { a: 1 } }) // '0x…'
 */
export function stepInputHash(step: unknown, scope: TemplateScope): `0x${string}` {
  const reads: Record<string, unknown> = {}
  for (const text of stringsOf(step)) {
    let references: ReturnType<typeof findReferences> = []
    try {
      references = findReferences(text)
    } catch {
      // A malformed template failed the step itself; the step's own text is still hashed.
    }
    for (const reference of references) {
      const found = lookupReference(scope, reference)
      reads[reference.source] = found.found ? found.value : null
    }
  }
  return hashJson({ step: step ?? null, reads })
}
