import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable } from './chromium'
import { openPlayground } from './open-playground'
import type { ServerProcess } from './server-process'

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
    const runCount = async () =>
      ((await (await fetch(`${server.baseUrl}/api/v1/runs`)).json()) as { runs: unknown[] }).runs
        .length
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
      ;({ server, browser, page } = await openPlayground({ pageErrors }))
    }, 300_000)

    afterAll(async () => {
      await browser?.close()
      await server?.dispose()
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
    }, 400_000)

    it('says Edited after an edit, refuses an unfilled required input, and lists a refused plan’s errors once', async () => {
      await page.setViewportSize({ width: 1280, height: 900 })
      await page.goto(`${server.baseUrl}/#/runs`)
      await page.reload()
      await page.getByText('name: risk-review').waitFor({ timeout: 20_000 })
      const picker = page.getByLabel('Plan', { exact: true })
      const pickedLabel = () => picker.locator('option:checked').textContent()
      expect(await pickedLabel()).not.toMatch(/edited/)
      expect(await page.locator('[data-plan-edited]').count()).toBe(0)
      await page.locator('.cm-content').click()
      await page.keyboard.press('ControlOrMeta+End')
      await page.keyboard.insertText('\n# a note of mine\n')
      await page.locator('[data-plan-edited]').waitFor()
      expect(await pickedLabel()).toMatch(/\(edited\)/)

      // `request` has no default: left empty, the run is refused here and nothing is sent.
      const before = await runCount()
      const request = page.getByLabel('Input request')
      await request.fill('')
      await page.getByRole('button', { name: 'Run the plan' }).click()
      const refusal = page.locator('p.error-text[role="alert"]')
      await refusal.waitFor()
      expect(await refusal.textContent()).toMatch(/fill in request/)
      expect(await request.getAttribute('aria-invalid')).toBe('true')
      await page.waitForTimeout(500)
      expect(await runCount()).toBe(before)

      // A plan the server refuses: its issues listed once, not again in the sentence under them.
      await page.locator('.cm-content').click()
      await page.keyboard.press('ControlOrMeta+A')
      await page.keyboard.insertText('name: broken\nsteps:\n  - op: explode\n')
      await page.getByRole('button', { name: 'Run the plan' }).click()
      const issues = page.getByRole('list', { name: 'Plan errors' })
      await issues.waitFor({ timeout: 15_000 })
      const listed = (await issues.locator('li').first().textContent())!
      const message = listed.replace(/^line \d+: /, '').replace(/^[^:]*\]: /, '')
      expect(message.length).toBeGreaterThan(5)
      const section = (await page.locator('#runs-title').locator('..').textContent())!
      expect(section.split(message).length - 1).toBe(1)
      expect(await refusal.textContent()).toMatch(/The run did not start: the plan has a problem/)
    }, 60_000)

    it('shows a swarm run opened in Runs as its rounds, not one Run node', async () => {
      const started = await fetch(`${server.baseUrl}/api/v1/swarms/dev-team/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ task: 'ship version 2' }),
      })
      expect(started.status).toBe(202)
      const { runId: id } = (await started.json()) as { runId: string }
      await openRun(id)
      await page.locator('[data-run-status="done"]').waitFor({ timeout: 45_000 })
      await page
        .locator('[data-swarm-rounds] section[aria-label="Round 1"]')
        .waitFor({ timeout: 15_000 })
      expect(await page.locator('[data-swarm-rounds] tr[data-kind]').count()).toBeGreaterThan(0)
      expect(await page.locator('[data-tree-node]').count()).toBe(0)
    }, 60_000)

    it('keeps the tree readable at 390 px with its zoom controls off the nodes, visible in dark mode, and budget left moving', async () => {
      const plans = (await (await fetch(`${server.baseUrl}/api/v1/plans`)).json()) as {
        plans: { id: string; source?: string; yaml?: string }[]
      }
      const seeded = plans.plans.find((plan) => plan.id === 'risk-review')!
      const id = await startRun({
        plan: seeded.source ?? seeded.yaml,
        inputs: { request: 'Ship the billing change on Friday' },
      })
      await page.setViewportSize({ width: 390, height: 844 })
      await openRun(id)
      await page.locator('[data-run-status="done"]').waitFor({ timeout: 45_000 })
      await page.locator('[data-tree-node="steps[0]"]').waitFor({ timeout: 15_000 })
      await page.locator('.tree').scrollIntoViewIfNeeded()
      await page.waitForTimeout(500)
      const measured = await page.evaluate(() => {
        const controls = document
          .querySelector('.tree .react-flow__controls')!
          .getBoundingClientRect()
        const nodes = Array.from(document.querySelectorAll('[data-tree-node]')) as HTMLElement[]
        const overlaps = nodes.filter((node) => {
          const box = node.getBoundingClientRect()
          return !(
            box.right <= controls.left ||
            box.left >= controls.right ||
            box.bottom <= controls.top ||
            box.top >= controls.bottom
          )
        }).length
        const smallest = Math.min(
          ...nodes.flatMap((node) => {
            const scale = node.getBoundingClientRect().width / node.offsetWidth
            return (Array.from(node.querySelectorAll('strong, span, div')) as HTMLElement[]).map(
              (text) => Number.parseFloat(getComputedStyle(text).fontSize) * scale,
            )
          }),
        )
        return { overlaps, smallest }
      })
      expect(measured.overlaps).toBe(0)
      expect(measured.smallest).toBeGreaterThanOrEqual(11)
      // $0.50 less $0.000022 is not $0.5000: the figure moves as the run spends.
      expect(
        await page.locator('[data-tree-node="steps[0]"] [data-budget-left]').textContent(),
      ).toMatch(/budget left \$0\.4999\d*[1-9]/)

      await page.setViewportSize({ width: 1280, height: 900 })
      await page.getByRole('button', { name: 'Switch to dark theme' }).click()
      const colours = await page.evaluate(() => {
        const button = document.querySelector('.tree .react-flow__controls-button')!
        const canvas = document.querySelector('.tree .react-flow')!
        const style = getComputedStyle(button)
        return {
          button: style.backgroundColor,
          border: style.borderBottomColor,
          icon: getComputedStyle(button.querySelector('svg')!).fill,
          canvas: getComputedStyle(canvas).backgroundColor,
        }
      })
      await page.getByRole('button', { name: 'Switch to light theme' }).click()
      expect(colours.button).not.toBe(colours.canvas)
      expect(colours.border).not.toBe(colours.canvas)
      expect(colours.icon).not.toBe(colours.button)
    }, 90_000)

    it('creates a swarm from the Swarms view, and says why when the server refuses one', async () => {
      await page.goto(`${server.baseUrl}/#/swarms`)
      await page.reload()
      const form = page.getByRole('form', { name: 'Create a swarm' })
      await form.waitFor({ timeout: 15_000 })
      await form.getByLabel('Name').fill('Release council')
      await form.getByLabel('Strategy').selectOption('democratic')
      await form.getByRole('checkbox', { name: 'Incident Analyst' }).check()
      await form.getByRole('checkbox', { name: 'Reviewer' }).check()
      await form.getByLabel('Role of Reviewer').selectOption('critic')
      await form.getByLabel('Weight of Reviewer').fill('0.5')
      await form.getByRole('button', { name: 'Create the swarm' }).click()
      await form.getByRole('status').waitFor({ timeout: 15_000 })
      const stored = await fetch(`${server.baseUrl}/api/v1/swarms/release-council`)
      expect(stored.status).toBe(200)
      const body = (await stored.json()) as { swarm?: unknown }
      expect(body.swarm ?? body).toMatchObject({
        strategy: 'democratic',
        agents: [
          { agentId: 'analyst', role: 'worker', weight: 1 },
          { agentId: 'reviewer', role: 'critic', weight: 0.5 },
        ],
      })
      await expect
        .poll(() => page.getByLabel('Swarm', { exact: true }).inputValue(), { timeout: 10_000 })
        .toBe('release-council')
      // The same name again: refused by the server, in its words.
      await form.getByLabel('Name').fill('Release council')
      await form.getByRole('checkbox', { name: 'Tester' }).check()
      await form.getByRole('button', { name: 'Create the swarm' }).click()
      expect(await form.getByRole('alert').textContent({ timeout: 15_000 })).toMatch(
        /not created: .*release-council.*exists already/,
      )
    }, 60_000)

    it('lets the creator revoke an agent it registered from its card, signed in the browser', async () => {
      await page.goto(`${server.baseUrl}/#/agents`)
      await page.reload()
      await page.getByRole('button', { name: 'Register an agent' }).click()
      const form = page.getByRole('form', { name: 'Register an agent' })
      await form.getByLabel('Name').fill('Short lived')
      await form.getByLabel('Id (a slug)').fill('short-lived')
      await form.getByLabel('Tagline').fill('Here for a moment')
      await form.getByRole('button', { name: 'Sign and register' }).click()
      const wallet = (await form.getByRole('status').textContent({ timeout: 20_000 }))!.match(
        /0x[0-9a-fA-F]{40}/,
      )![0]
      const card = page.getByRole('article', { name: 'Short lived' })
      await card.waitFor({ timeout: 15_000 })
      // Only what this browser created can be revoked from here.
      expect(
        await page
          .getByRole('article', { name: 'Reviewer' })
          .getByRole('button', { name: 'Revoke' })
          .count(),
      ).toBe(0)
      await card.getByRole('button', { name: 'Revoke' }).click()
      await card.getByRole('button', { name: 'Sign and revoke Short lived' }).click()
      await card.waitFor({ state: 'detached', timeout: 20_000 })
      expect((await fetch(`${server.baseUrl}/agent/${wallet}`)).status).not.toBe(200)
    }, 60_000)

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
    }, 300_000)
  },
)
