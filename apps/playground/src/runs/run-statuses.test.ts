import { describe, expect, it } from 'vitest'
import { isFinalRunStatus, waitsForAPerson } from './run-statuses'

describe('run statuses', () => {
  it('treats an interrupted run as not over: it waits for a resume', () => {
    expect(isFinalRunStatus('interrupted')).toBe(false)
    expect(waitsForAPerson('interrupted')).toBe(true)
  })

  it('treats done, stopped, failed and cancelled as final, and a running run as moving', () => {
    for (const status of ['done', 'stopped', 'failed', 'cancelled'])
      expect(isFinalRunStatus(status)).toBe(true)
    expect(isFinalRunStatus('running')).toBe(false)
    expect(waitsForAPerson('running')).toBe(false)
  })
})
