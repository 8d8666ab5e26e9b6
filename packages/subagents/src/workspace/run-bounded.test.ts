import { describe, expect, it } from 'vitest'
import { runBounded } from './run-bounded'
import { WorkspaceToolTimeoutError } from './workspace-errors'

describe('runBounded', () => {
  it('gives WORKSPACE_TOOL_TIMEOUT when the work does not finish in time', async () => {
    const call = runBounded({ tool: 'open_page', timeoutMs: 20 }, () => new Promise(() => {}))
    await expect(call).rejects.toBeInstanceOf(WorkspaceToolTimeoutError)
  })

  it('gives WORKSPACE_TOOL_TIMEOUT, not the raw error, when the work’s own wait times out first', async () => {
    const playwrightTimeout = Object.assign(new Error('page.goto: Timeout 2000ms exceeded.'), {
      name: 'TimeoutError',
    })
    const call = runBounded({ tool: 'open_page', timeoutMs: 2_000 }, () =>
      Promise.reject(playwrightTimeout),
    )
    await expect(call).rejects.toMatchObject({
      code: 'WORKSPACE_TOOL_TIMEOUT',
      details: { tool: 'open_page', timeoutMs: 2_000 },
    })
  })

  it('passes any other failure on as it is', async () => {
    const refused = new Error('net::ERR_CONNECTION_REFUSED')
    await expect(
      runBounded({ tool: 'open_page', timeoutMs: 2_000 }, () => Promise.reject(refused)),
    ).rejects.toBe(refused)
  })
})
