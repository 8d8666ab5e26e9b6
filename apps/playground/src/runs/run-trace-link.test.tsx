// @vitest-environment happy-dom
import { cleanup, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { RunTraceLink } from './run-trace-link'

afterEach(cleanup)

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736'

describe('RunTraceLink', () => {
  it('links the trace id to the tracing UI when the server gives a trace URL', () => {
    const url = `http://jaeger.test:16686/trace/${traceId}`
    const { getByRole } = render(<RunTraceLink traceId={traceId} traceUrl={url} />)
    const link = getByRole('link')
    expect(link.getAttribute('href')).toBe(url)
    expect(link.textContent).toBe(traceId)
  })

  it('shows the bare trace id without a template, and nothing without a trace', () => {
    const { container, queryByRole, rerender } = render(
      <RunTraceLink traceId={traceId} traceUrl={null} />,
    )
    expect(queryByRole('link')).toBeNull()
    expect(container.textContent).toContain(traceId)
    rerender(<RunTraceLink traceId={null} traceUrl={null} />)
    expect(container.textContent).toBe('')
  })
})
