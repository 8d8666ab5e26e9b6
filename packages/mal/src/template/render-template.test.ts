import { describe, expect, it } from 'vitest'
import { findReferences, parseTemplate } from './parse-template'
import { renderTemplate, renderValue } from './render-template'
import { TemplateSyntaxError, TemplateUnresolvedError } from './template-errors'

const scope = {
  inputs: { request: 'ship it', user: { name: 'Ada' } },
  values: {
    analysis: { notes: [{ field: 'risk', level: 3 }], 'odd key': 'x' },
    count: 2,
    empty: '',
    nothing: null,
  },
}

describe('renderTemplate', () => {
  it('reads inputs both as inputs.name and by bare name', () => {
    expect(renderTemplate('{{inputs.request}} / {{request}}', scope)).toBe('ship it / ship it')
  })

  it('walks dotted and indexed paths, with spaces inside the braces', () => {
    expect(renderTemplate('{{ analysis.notes[0].field }}={{analysis.notes[0].level}}', scope)).toBe(
      'risk=3',
    )
    expect(renderTemplate(`{{analysis["odd key"]}}`, scope)).toBe('x')
  })

  it('writes objects as JSON and keeps empty strings and null visible', () => {
    expect(renderTemplate('notes: {{analysis.notes}}', scope)).toBe(
      'notes: [{"field":"risk","level":3}]',
    )
    expect(renderTemplate('[{{empty}}][{{nothing}}]', scope)).toBe('[][null]')
  })

  it('leaves single braces and JSON-looking text alone', () => {
    expect(renderTemplate('{"a": {b}} }} {', scope)).toBe('{"a": {b}} }} {')
  })

  it('refuses a reference with no value, naming where the path broke', () => {
    expect(() => renderTemplate('{{missing}}', scope)).toThrow(TemplateUnresolvedError)
    expect(() => renderTemplate('{{analysis.notes[5]}}', scope)).toThrow(
      /has no \[5\] in analysis.notes \(an array of 1\)/,
    )
    expect(() => renderTemplate('{{count.value}}', scope)).toThrow(/a number/)
  })

  it('refuses code, unclosed braces and empty references', () => {
    for (const bad of ['{{a + b}}', '{{ fn() }}', '{{open', '{{ }}', '{{a.}}', '{{1abc}}']) {
      expect(() => parseTemplate(bad), bad).toThrow(TemplateSyntaxError)
    }
  })
})

describe('renderValue', () => {
  it('keeps the type of a value when the string is exactly one reference', () => {
    expect(renderValue('{{analysis.notes}}', scope)).toEqual([{ field: 'risk', level: 3 }])
    expect(
      renderValue({ n: '{{count}}', text: 'n={{count}}', list: ['{{nothing}}'] }, scope),
    ).toEqual({ n: 2, text: 'n=2', list: [null] })
  })
})

describe('findReferences', () => {
  it('lists each reference with its root and path', () => {
    expect(findReferences('a {{x.y[1]}} b {{inputs.z}}').map((r) => [r.root, r.path])).toEqual([
      ['x', ['y', 1]],
      ['inputs', ['z']],
    ])
  })
})
