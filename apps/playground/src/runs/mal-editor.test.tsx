// @vitest-environment happy-dom
import { cleanup, render, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { PlanCheck } from '../api/client'
import { MalEditor } from './mal-editor'

afterEach(cleanup)

const source = 'name: demo\nsteps:\n  - op: explode\n'
const unknownOp: PlanCheck = {
  ok: false,
  issues: [
    { message: 'unknown op', code: 'PLAN_INVALID', path: 'steps[0].op', line: 3, column: 5 },
  ],
}

function markedLines(container: HTMLElement): number[] {
  return Array.from(container.querySelectorAll('.cm-content .cm-line')).flatMap((line, index) =>
    line.querySelector('.cm-lintRange-error') ? [index + 1] : [],
  )
}

describe('MalEditor', () => {
  it("marks the server's check of the text at its line without a run", async () => {
    const sent: string[] = []
    const { container } = render(
      <MalEditor
        value={source}
        onChange={() => {}}
        serverIssues={[]}
        validate={async (text) => {
          sent.push(text)
          return unknownOp
        }}
      />,
    )
    await waitFor(() => expect(markedLines(container)).toEqual([3]), { timeout: 5_000 })
    expect(sent).toEqual([source])
  })

  it('drops the last answer when the server goes down, keeping the local YAML marks', async () => {
    let up = true
    const validate = async (): Promise<PlanCheck> => {
      if (!up) throw new Error('request failed (ECONNREFUSED)')
      return unknownOp
    }
    const editor = (value: string) => (
      <MalEditor value={value} onChange={() => {}} serverIssues={[]} validate={validate} />
    )
    const { container, rerender } = render(editor(source))
    await waitFor(() => expect(markedLines(container)).toEqual([3]), { timeout: 5_000 })
    up = false
    rerender(editor('name: demo\nsteps:\n  - op: stopp\n'))
    await waitFor(() => expect(markedLines(container)).toEqual([]), { timeout: 5_000 })
    rerender(editor('name: broken\nsteps: [\n  - op: stop\n'))
    await waitFor(() => expect(markedLines(container).length).toBeGreaterThan(0), {
      timeout: 5_000,
    })
  })
})
