import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { chromiumAvailable, launchChromium } from './chromium'
import { type ServerProcess, startServerProcess } from './server-process'

const appRoot = fileURLToPath(new URL('..', import.meta.url))
const screenshots = join(appRoot, 'e2e', 'screenshots')
const run = chromiumAvailable()

describe.skipIf(!run)(
  'editing and deleting a swarm from the Swarms view, in a real browser',
  () => {
    let server: ServerProcess
    let browser: Browser
    let page: Page
    const pageErrors: string[] = []

    const stored = async (id: string) => {
      const response = await fetch(`${server.baseUrl}/api/v1/swarms/${id}`)
      return {
        status: response.status,
        swarm: ((await response.json()) as { swarm?: Record<string, unknown> }).swarm,
      }
    }
    const openSwarms = async () => {
      await page.goto(`${server.baseUrl}/#/swarms`)
      await page.reload()
      await page.getByRole('form', { name: 'Create a swarm' }).waitFor({ timeout: 15_000 })
    }
    const picker = () => page.getByLabel('Swarm', { exact: true })

    beforeAll(async () => {
      await mkdir(screenshots, { recursive: true })
      server = await startServerProcess({ playgroundDir: inject('playgroundDir') })
      browser = await launchChromium()
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      page.on('pageerror', (error) => pageErrors.push(error.message))
    }, 180_000)

    afterAll(async () => {
      await browser?.close()
      await server?.dispose()
    })

    it('creates a swarm, edits its members, runs it with them, and deletes it after asking', async () => {
      await openSwarms()
      const create = page.getByRole('form', { name: 'Create a swarm' })
      await create.getByLabel('Name').fill('Launch crew')
      await create.getByRole('checkbox', { name: 'Incident Analyst' }).check()
      await create.getByRole('checkbox', { name: 'Tester' }).check()
      await create.getByRole('button', { name: 'Create the swarm' }).click()
      await create.getByRole('status').waitFor({ timeout: 15_000 })
      await expect.poll(() => picker().inputValue(), { timeout: 10_000 }).toBe('launch-crew')

      // Edit: the form opens filled with the swarm; the tester leaves, the reviewer joins.
      await page.getByRole('button', { name: 'Edit', exact: true }).click()
      const edit = page.getByRole('form', { name: 'Edit the swarm' })
      await edit.waitFor()
      expect(await page.getByRole('form', { name: 'Create a swarm' }).count()).toBe(0)
      expect(await edit.getByLabel('Name').inputValue()).toBe('Launch crew')
      expect(await edit.getByRole('checkbox', { name: 'Incident Analyst' }).isChecked()).toBe(true)
      expect(await edit.getByRole('checkbox', { name: 'Tester' }).isChecked()).toBe(true)
      await edit.getByRole('checkbox', { name: 'Tester' }).uncheck()
      await edit.getByRole('checkbox', { name: 'Reviewer' }).check()
      await edit.getByLabel('Role of Reviewer').selectOption('critic')
      await edit.getByLabel('Weight of Reviewer').fill('0.5')
      await edit.getByLabel('Description').fill('Decides how a release ships')
      await edit.screenshot({ path: join(screenshots, 'swarm-edit-form-desktop.png') })
      await page.setViewportSize({ width: 390, height: 844 })
      await edit.screenshot({ path: join(screenshots, 'swarm-edit-form-phone.png') })
      await page.setViewportSize({ width: 1280, height: 900 })
      await edit.getByRole('button', { name: 'Save the swarm' }).click()
      await page.getByText('Saved the swarm "Launch crew".').waitFor({ timeout: 15_000 })
      expect(await edit.count()).toBe(0)
      const changed = await stored('launch-crew')
      expect(changed.swarm).toMatchObject({
        name: 'Launch crew',
        description: 'Decides how a release ships',
        strategy: 'democratic',
        agents: [
          { agentId: 'analyst', role: 'worker', weight: 1 },
          { agentId: 'reviewer', role: 'critic', weight: 0.5 },
        ],
      })
      await expect
        .poll(() => page.getByText(/^Members:/).textContent(), { timeout: 10_000 })
        .toMatch(/reviewer \(critic, weight 0\.5\)/)

      // Run it: the new member takes part, the one that left does not.
      await page.getByRole('button', { name: 'Run the swarm' }).click()
      const swarmRun = page.locator('[data-swarm-run][data-status="done"]')
      await swarmRun.waitFor({ timeout: 45_000 })
      const speakers = await swarmRun
        .locator('tr[data-kind="proposal"] td:nth-child(2)')
        .allTextContents()
      expect(new Set(speakers)).toEqual(new Set(['analyst', 'reviewer']))
      await page.screenshot({ path: join(screenshots, 'swarms-desktop.png'), fullPage: true })

      // Delete asks first; "Keep it" keeps it.
      await page.getByRole('button', { name: 'Delete…' }).click()
      await page.getByRole('button', { name: 'Keep it' }).click()
      expect((await stored('launch-crew')).status).toBe(200)
      await page.getByRole('button', { name: 'Delete…' }).click()
      await page.getByRole('button', { name: 'Delete Launch crew' }).click()
      await page.getByText(/Deleted the swarm "Launch crew"/).waitFor({ timeout: 15_000 })
      expect((await stored('launch-crew')).status).toBe(404)
      expect(await picker().locator('option').allTextContents()).not.toContainEqual(
        expect.stringMatching(/Launch crew/),
      )
      // The run it had stays readable.
      const runId = await swarmRun.getAttribute('data-swarm-run')
      expect((await fetch(`${server.baseUrl}/api/v1/runs/${runId}`)).status).toBe(200)
      expect(pageErrors).toEqual([])
    }, 120_000)

    it('shows a refused change once, naming the field, and stores nothing', async () => {
      const created = await fetch(`${server.baseUrl}/api/v1/swarms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'pair',
          name: 'Pair',
          strategy: 'round-robin',
          agents: [
            { agentId: 'analyst', role: 'worker' },
            { agentId: 'tester', role: 'worker' },
          ],
        }),
      })
      expect(created.status).toBe(201)
      await openSwarms()
      await picker().selectOption('pair')
      await page.getByRole('button', { name: 'Edit', exact: true }).click()
      const edit = page.getByRole('form', { name: 'Edit the swarm' })
      // Hierarchical needs a leader, and nobody here is one: the server refuses, naming agents.
      await edit.getByLabel('Strategy').selectOption('hierarchical')
      await edit.getByRole('button', { name: 'Save the swarm' }).click()
      const alert = edit.getByRole('alert')
      expect(await alert.textContent({ timeout: 15_000 })).toBe(
        'The swarm was not saved: Invalid swarm: agents: a hierarchical swarm needs a leader',
      )
      const text = (await page.locator('#swarms-title').locator('..').textContent())!
      await edit.screenshot({ path: join(screenshots, 'swarm-edit-refused-desktop.png') })
      expect(text.split('needs a leader').length - 1).toBe(1)
      expect((await stored('pair')).swarm?.strategy).toBe('round-robin')

      // Giving the analyst the lead makes the same change valid; "Stop editing" closes the form.
      await edit.getByLabel('Role of Incident Analyst').selectOption('leader')
      await edit.getByRole('button', { name: 'Save the swarm' }).click()
      await page.getByText('Saved the swarm "Pair".').waitFor({ timeout: 15_000 })
      expect((await stored('pair')).swarm?.strategy).toBe('hierarchical')
      await page.getByRole('button', { name: 'Edit', exact: true }).click()
      await edit.getByRole('button', { name: 'Stop editing' }).click()
      expect(await edit.count()).toBe(0)
      // Picking another swarm while editing closes the edit form and brings the create form back.
      await page.getByRole('button', { name: 'Edit', exact: true }).click()
      await edit.waitFor()
      await picker().selectOption('dev-team')
      await page.getByRole('form', { name: 'Create a swarm' }).waitFor()
      expect(await edit.count()).toBe(0)
      expect(pageErrors).toEqual([])
    }, 60_000)
  },
)
