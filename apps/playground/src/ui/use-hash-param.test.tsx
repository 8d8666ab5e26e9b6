// @vitest-environment happy-dom
import { act, cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { useHashParam } from './use-hash-param'

afterEach(cleanup)

function Shown() {
  const [run, chooseRun] = useHashParam('run')
  return (
    <button type="button" data-run={run ?? ''} onClick={() => chooseRun('run-3')}>
      {run ?? 'none'}
    </button>
  )
}

function goTo(hash: string) {
  const before = window.location.href
  window.history.pushState(null, '', hash)
  window.dispatchEvent(
    new HashChangeEvent('hashchange', { oldURL: before, newURL: window.location.href }),
  )
}

describe('useHashParam', () => {
  it('follows the address when only its hash changes, as a link on the same view does', () => {
    window.history.replaceState(null, '', '#/runs?run=run-1')
    const { getByRole } = render(<Shown />)
    expect(getByRole('button').textContent).toBe('run-1')
    act(() => goTo('#/runs?run=run-2'))
    expect(getByRole('button').textContent).toBe('run-2')
    // Back to the bare view: nothing is chosen any more.
    act(() => goTo('#/runs'))
    expect(getByRole('button').textContent).toBe('none')
  })

  it('writes a choice into the address, keeping the view and the other parameters', () => {
    window.history.replaceState(null, '', '#/runs?tab=events')
    const length = window.history.length
    const { getByRole } = render(<Shown />)
    act(() => getByRole('button').click())
    expect(getByRole('button').textContent).toBe('run-3')
    expect(window.location.hash).toBe('#/runs?tab=events&run=run-3')
    // No history entry: back leaves the view, it does not step through runs.
    expect(window.history.length).toBe(length)
  })
})
