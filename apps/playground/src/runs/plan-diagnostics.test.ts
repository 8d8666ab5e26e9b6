import { Text } from '@codemirror/state'
import { describe, expect, it } from 'vitest'
import type { PlanCheck } from '../api/client'
import { checkPlanSyntax, issuesFromRefusal, planDiagnostics } from './plan-diagnostics'
import { createPlanLinter } from './plan-linter'

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

describe('createPlanLinter', () => {
  const unknownOp: PlanCheck = {
    ok: false,
    issues: [
      {
        message: 'unknown op; expected one of task, delegate, …',
        code: 'PLAN_INVALID',
        path: 'steps[0].op',
        line: 3,
        column: 5,
      },
    ],
  }

  it("marks the server's issues at their lines as one types, beside the local checks", async () => {
    const lint = createPlanLinter({ validate: async () => unknownOp })
    const markers = await lint(doc)
    expect(markers).toHaveLength(1)
    expect(markers[0]!.message).toMatch(/^steps\[0\]\.op: unknown op/)
    expect(doc.sliceString(markers[0]!.from, markers[0]!.to)).toBe('op: delegat')

    const broken = Text.of(['name: broken', 'steps: [', ''])
    const both = await createPlanLinter({ validate: async () => unknownOp })(broken)
    expect(both.length).toBeGreaterThanOrEqual(2)
  })

  it('shows a YAML error the server repeats once, and nothing for a valid plan', async () => {
    const broken = 'name: broken\nsteps: [\n'
    const local = checkPlanSyntax(broken)
    const lint = createPlanLinter({
      validate: async () => ({
        ok: false,
        issues: local.map((issue) => ({
          message: issue.message,
          code: 'PLAN_INVALID',
          path: '',
          line: issue.line ?? null,
          column: issue.column ?? null,
        })),
      }),
    })
    expect(await lint(Text.of(broken.split('\n')))).toHaveLength(local.length)
    const valid = createPlanLinter({
      validate: async () => ({ ok: true, plan: { name: 'demo', steps: 1 } }),
    })
    expect(await valid(doc)).toEqual([])
  })

  it('aborts the check still in flight when a new one starts', async () => {
    const signals: AbortSignal[] = []
    const lint = createPlanLinter({
      validate: (_source, signal) => {
        signals.push(signal)
        return new Promise<PlanCheck>((resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason))
          if (signals.length > 1) resolve(unknownOp)
        })
      },
    })
    const first = lint(doc)
    const second = lint(doc)
    expect(signals[0]!.aborted).toBe(true)
    expect(signals[1]!.aborted).toBe(false)
    expect(await first).toEqual([])
    expect(await second).toHaveLength(1)
  })

  it('leaves no stale marks when the server cannot be reached', async () => {
    let up = true
    const lint = createPlanLinter({
      validate: async () => {
        if (!up) throw new Error('request failed (ECONNREFUSED)')
        return unknownOp
      },
    })
    expect(await lint(doc)).toHaveLength(1)
    up = false
    expect(await lint(doc)).toEqual([])
    const broken = Text.of(['name: broken', 'steps: [', ''])
    expect((await lint(broken)).length).toBeGreaterThan(0)
  })
})
