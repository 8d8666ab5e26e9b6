import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { build } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable, launchChromium } from './chromium'
import { type ServerProcess, startServerProcess } from './server-process'

const appRoot = fileURLToPath(new URL('..', import.meta.url))
const run = chromiumAvailable()
const token = 'e2e-admin-token-0123456789'

const askPlan = `name: ask-region
steps:
  - op: ask_user
    saveAs: region
    question: "Which region?"
  - op: stop
    output: "{{region}}"
`
// Three slow steps: a server stopped during the second leaves the run interrupted after the first.
const slowPlan = {
  name: 'three-waits',
  steps: [0, 1, 2].map((index) => ({
    op: 'tool',
    toolName: 'wait',
    args: { ms: 1500 },
    saveAs: `w${index}`,
  })),
}

describe.skipIf(!run)(
  'the Runs view follows a run to its end, and the page works under a token',
  () => {
    let outDir: string
    let server: ServerProcess
    let browser: Browser
    let page: Page
    const pageErrors: string[] = []

    const startRun = async (body: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.baseUrl}/api/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })
      expect(response.status).toBe(202)
      return ((await response.json()) as { id: string }).id
    }
    const openRun = async (id: string) => {
      await page.goto(`${server.baseUrl}/#/runs?run=${id}`)
      await page.reload()
      await page.locator(`[data-run-id="${id}"]`).waitFor({ timeout: 15_000 })
    }
    const eventTypes = () =>
      page
        .locator('[aria-label="Run events"] li')
        .evaluateAll((items) => items.map((item) => item.getAttribute('data-event-type')))

    beforeAll(async () => {
      outDir = await mkdtemp(join(tmpdir(), 'baton-playground-dist-'))
      await build({ root: appRoot, logLevel: 'error', build: { outDir, emptyOutDir: true } })
      server = await startServerProcess({ playgroundDir: outDir })
      browser = await launchChromium()
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      page.on('pageerror', (error) => pageErrors.push(error.message))
    }, 180_000)

    afterAll(async () => {
      await browser?.close()
      await server?.dispose()
      if (outDir) await rm(outDir, { recursive: true, force: true })
    })

    it('follows a run past its ask_user answer to done, and the recent runs list with it', async () => {
      const id = await startRun({ plan: askPlan })
      await openRun(id)
      const answer = page.getByLabel(/The plan asks: Which region\?/)
      await answer.waitFor({ timeout: 30_000 })
      const listed = page.locator(`[data-run-item="${id}"]`)
      await expect
        .poll(() => listed.getAttribute('data-status'), { timeout: 15_000 })
        .toBe('paused')
      await answer.fill('eu-west')
      await page.getByRole('button', { name: 'Answer' }).click()
      await page.locator('[data-run-status="done"]').waitFor({ timeout: 30_000 })
      // The events go on past the pause to the run's real end.
      await expect
        .poll(async () => (await eventTypes()).filter((type) => type === 'run-finish').length, {
          timeout: 15_000,
        })
        .toBe(2)
      expect((await eventTypes()).at(-1)).toBe('run-finish')
      expect(await page.locator('[aria-label="Run events"] li').last().textContent()).toMatch(
        /done/,
      )
      await expect.poll(() => listed.getAttribute('data-status'), { timeout: 10_000 }).toBe('done')
      expect(pageErrors).toEqual([])
    }, 60_000)

    it('shows a run stopped by a restart as Interrupted with Resume, and follows it to done', async () => {
      const id = await startRun({ plan: slowPlan })
      await openRun(id)
      await page.locator('[data-event-type="step-finish"]').first().waitFor({ timeout: 30_000 })
      await server.stop()
      await server.start()
      // The page reconnects by itself and reads the run's stored end: interrupted, its own event.
      await page.locator('[data-run-status="interrupted"]').waitFor({ timeout: 45_000 })
      await expect
        .poll(async () => (await eventTypes()).at(-1), { timeout: 15_000 })
        .toBe('run-interrupted')
      expect(await eventTypes()).not.toContain('run-finish')
      expect(await page.locator('[data-interrupted]').textContent()).toMatch(/Interrupted/)
      await expect
        .poll(() => page.locator(`[data-run-item="${id}"]`).getAttribute('data-status'), {
          timeout: 10_000,
        })
        .toBe('interrupted')
      const resume = page.getByRole('button', { name: 'Resume' })
      expect(await page.getByRole('button', { name: 'Cancel' }).count()).toBe(0)
      await resume.click()
      await page.locator('[data-run-status="done"]').waitFor({ timeout: 45_000 })
      await expect
        .poll(async () => (await eventTypes()).at(-1), { timeout: 15_000 })
        .toBe('run-finish')
      // Read again from the start after the resume: each step finished once, no interruption left.
      const types = await eventTypes()
      expect(types).not.toContain('run-interrupted')
      expect(types.filter((type) => type === 'step-finish')).toHaveLength(3)
      await expect
        .poll(() => page.locator(`[data-run-item="${id}"]`).getAttribute('data-status'), {
          timeout: 10_000,
        })
        .toBe('done')
    }, 120_000)

    it('asks for the key on a 401, says when it is wrong, and sends it on every request and stream', async () => {
      await server.stop()
      await server.start({ BATON_API_TOKEN: token })
      await page.goto(`${server.baseUrl}/#/agents`)
      await page.reload()
      const form = page.getByRole('form', { name: 'API key' })
      await form.waitFor({ timeout: 20_000 })
      expect(await page.getByText('The Baton server is not answering').count()).toBe(0)
      await form.getByLabel('API key').fill('not-the-key-at-all-000')
      await form.getByRole('button', { name: 'Use this key' }).click()
      await form.getByText('Wrong key.').waitFor({ timeout: 15_000 })

      await form.getByLabel('API key').fill(token)
      await form.getByRole('button', { name: 'Use this key' }).click()
      await page.getByRole('article', { name: 'Ops Orchestrator' }).waitFor({ timeout: 20_000 })
      await form.waitFor({ state: 'detached' })
      // Kept for the session: a reload asks for nothing.
      await page.reload()
      await page.getByRole('article', { name: 'Ops Orchestrator' }).waitFor({ timeout: 20_000 })
      expect(await form.count()).toBe(0)
      expect(
        await page.evaluate(() => Object.keys(sessionStorage).filter((name) => /key/i.test(name))),
      ).toHaveLength(1)

      // A run started from the page (POST) streams its events (SSE) with the key.
      await page.goto(`${server.baseUrl}/#/runs`)
      await page.getByText('name: risk-review').waitFor({ timeout: 20_000 })
      await page.locator('.cm-content').click()
      await page.keyboard.press('ControlOrMeta+A')
      await page.keyboard.insertText('name: tiny\nsteps:\n  - op: stop\n    output: fine\n')
      await page.getByRole('button', { name: 'Run the plan' }).click()
      await page.locator('[data-run-status="done"]').waitFor({ timeout: 30_000 })
      await page.locator('[data-event-type="run-finish"]').waitFor({ timeout: 15_000 })
      expect(await form.count()).toBe(0)
      expect(pageErrors).toEqual([])
    }, 120_000)
  },
)
