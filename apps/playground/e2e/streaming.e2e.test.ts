import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable } from './chromium'
import { openPlayground, screenshots } from './open-playground'
import type { ServerProcess } from './server-process'

// The offline model slowed per chunk: 24 characters every 120 ms, about five seconds in all.
const answer = 'The incident started with a failed deploy of the billing service. '.repeat(6).trim()
const slowly = `[[chunk-delay:120]] [[answer:${answer}]]`

describe.skipIf(!chromiumAvailable())('streamed text in the playground, in a real browser', () => {
  let server: ServerProcess
  let browser: Browser
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    ;({ server, browser, page } = await openPlayground({ pageErrors }))
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await server?.dispose()
  })

  it("shows a run step's text as it arrives, then the whole text and its time to first text", async () => {
    // The playground is loaded before the run starts: its text is streamed live only, so a
    // page still loading (slow on a busy machine) when the step finishes would see none of it.
    await page.goto(`${server.baseUrl}/#/runs`)
    await page.getByRole('heading', { level: 1 }).first().waitFor()
    const agents = (await (await fetch(`${server.baseUrl}/api/v1/agents`)).json()) as {
      agents: { id: string; wallet: string }[]
    }
    const analyst = agents.agents.find((agent) => agent.id === 'analyst')!.wallet
    const started = await fetch(`${server.baseUrl}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        plan: {
          steps: [
            {
              op: 'delegate',
              saveAs: 'analysis',
              agentWallet: analyst,
              // It starts writing once the page follows the run.
              prompt: `[[sleep:2500]] ${slowly}`,
            },
          ],
        },
      }),
    })
    const { id } = (await started.json()) as { id: string }
    // A change of the hash only: the page already loaded follows the run at once.
    await page.goto(`${server.baseUrl}/#/runs?run=${id}`)
    const writing = page.locator('[data-step-path="steps[0]"][data-step-text="writing"]')
    await writing.waitFor({ timeout: 30_000 })
    await expect
      .poll(async () => (await writing.textContent())?.includes('The incident'), {
        timeout: 15_000,
      })
      .toBe(true)
    const partial = (await writing.locator('div').last().textContent()) ?? ''
    // Part of the answer, not all of it, while the step is still running.
    expect(partial.length).toBeGreaterThan(0)
    expect(partial.length).toBeLessThan(answer.length)
    expect(answer.startsWith(partial)).toBe(true)
    expect(await page.locator('[data-event-type="step-finish"]').count()).toBe(0)
    await page.screenshot({ path: join(screenshots, 'run-streaming-desktop.png'), fullPage: true })

    const done = page.locator('[data-step-path="steps[0]"][data-step-text="done"]')
    await done.waitFor({ timeout: 30_000 })
    expect(await done.locator('div').last().textContent()).toBe(answer)
    const finish = page.locator('[data-event-type="step-finish"]')
    await finish.waitFor()
    expect(await finish.textContent()).toMatch(/first text after \d+ ms/)
  }, 90_000)

  it('shows a chat reply as the agent writes it, then the whole reply', async () => {
    await page.goto(`${server.baseUrl}/#/chat`)
    await page.getByRole('heading', { level: 1 }).first().waitFor()
    const box = page.getByRole('combobox')
    await box.click()
    await box.pressSequentially('@Ops')
    await page.getByRole('option', { name: /Ops Orchestrator/ }).waitFor()
    await box.press('Enter')
    await box.fill(`${await box.inputValue()}${slowly}`)
    await box.press('Enter')
    const draft = page.locator('[data-message-type="reply-draft"]')
    await draft.waitFor({ timeout: 30_000 })
    await expect
      .poll(async () => (await draft.textContent())?.includes('The incident'), { timeout: 15_000 })
      .toBe(true)
    const partial = (await draft.locator('div').last().textContent()) ?? ''
    expect(partial.length).toBeLessThan(answer.length)
    expect(answer.startsWith(partial)).toBe(true)
    expect(await draft.textContent()).toMatch(/writing…/)
    await page.screenshot({ path: join(screenshots, 'chat-streaming-desktop.png'), fullPage: true })

    const reply = page.locator('[data-message-type="reply"]').first()
    await reply.waitFor({ timeout: 30_000 })
    expect(await reply.textContent()).toContain(answer)
    // The draft gives way to the reply.
    await expect.poll(() => draft.count(), { timeout: 10_000 }).toBe(0)
    expect(pageErrors).toEqual([])
  }, 90_000)
})
