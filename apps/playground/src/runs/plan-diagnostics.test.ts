import { Text } from '@codemirror/state'
import { describe, expect, it } from 'vitest'
import { checkPlanSyntax, issuesFromRefusal, planDiagnostics } from './plan-diagnostics'

const source = 'name: demo\nsteps:\n  - op: delegat\n    prompt: hi\n'
const doc = Text.of(source.split('\n'))

describe('planDiagnostics', () => {
  it('marks an issue from its column to the end of its line', () => {
    const [marker] = planDiagnostics(doc, [
      { line: 3, column: 5, path: 'steps[0].op', message: 'unknown op "delegat"' },
    ])
    const line = doc.line(3)
    expect(marker).toMatchObject({
      from: line.from + 4,
      to: line.to,
      severity: 'error',
      message: 'steps[0].op: unknown op "delegat"',
    })
    expect(doc.sliceString(marker!.from, marker!.to)).toBe('op: delegat')
  })

  it('puts an issue without a line on the first line, and one past the end on the last with text', () => {
    const markers = planDiagnostics(doc, [{ message: 'no steps' }, { line: 99, message: 'late' }])
    expect(markers[0]!.from).toBe(0)
    const lastWithText = doc.line(doc.lines - 1)
    expect(markers[1]).toMatchObject({ from: lastWithText.from, to: lastWithText.to })
  })

  it('never makes an empty mark, which the editor would not show', () => {
    const markers = planDiagnostics(doc, [
      { line: 5, column: 1, message: 'unclosed' },
      { line: 1, column: 40, message: 'past the end' },
    ])
    for (const marker of markers) expect(marker.to).toBeGreaterThan(marker.from)
    expect(markers[1]).toMatchObject({ from: 0, to: doc.line(1).to })
  })
})

describe('checkPlanSyntax', () => {
  it('reports a YAML error at its line', () => {
    const issues = checkPlanSyntax('name: x\nsteps:\n  - op: stop\n   bad: [\n')
    expect(issues.length).toBeGreaterThan(0)
    expect(issues[0]!.line).toBeGreaterThanOrEqual(3)
  })

  it('reports a plan without a steps list, and nothing for a readable one', () => {
    expect(checkPlanSyntax('name: x')).toEqual([
      { line: 1, column: 1, path: 'steps', message: 'a plan needs a steps list' },
    ])
    expect(checkPlanSyntax(source)).toEqual([])
  })
})

describe('issuesFromRefusal', () => {
  it('reads the issues a server refusal lists, with their lines', () => {
    const refusal = {
      details: { issues: [{ path: 'steps[0].op', line: 3, column: 5, message: 'unknown op' }] },
    }
    expect(issuesFromRefusal(refusal)).toEqual([
      { path: 'steps[0].op', line: 3, column: 5, message: 'unknown op' },
    ])
    expect(issuesFromRefusal(new Error('down'))).toEqual([])
  })
})
