import { mkdir } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { signAgentRegistration } from '@baton/core'
import type { Browser, Page } from 'playwright-core'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { chromiumAvailable, launchChromium } from './chromium'
import { type ServerProcess, startServerProcess } from './server-process'

const appRoot = fileURLToPath(new URL('..', import.meta.url))
const screenshots = join(appRoot, 'e2e', 'screenshots')
const run = chromiumAvailable()

describe.skipIf(!run)("a browser task's screenshots in the run's delegation tree", () => {
  let site: http.Server
  let origin: string
  let server: ServerProcess
  let browser: Browser
  let page: Page
  let wallet: string
  const pageErrors: string[] = []

  // An agent the server's registry vouches for, whose card lists the browser tools.
  const registerBrowserAgent = async () => {
    const { registry } = (await (await fetch(`${server.baseUrl}/api/v1/runtime`)).json()) as {
      registry: `0x${string}`
    }
    const creator = privateKeyToAccount(generatePrivateKey())
    const agentAccount = privateKeyToAccount(generatePrivateKey())
    const stamp = new Date().toISOString()
    const body = await signAgentRegistration(
      {
        id: 'status-checker',
        wallet: agentAccount.address,
        creator: creator.address,
        name: 'Status checker',
        type: 'specialist',
        model: 'offline:default',
        capabilities: ['browsing'],
        tools: ['open_page', 'read_page', 'screenshot'],
        createdAt: stamp,
        updatedAt: stamp,
      },
      { creator, agentAccount, registry },
    )
    const response = await fetch(`${server.baseUrl}/api/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(response.status, await response.clone().text()).toBe(201)
    return agentAccount.address
  }

  beforeAll(async () => {
    await mkdir(screenshots, { recursive: true })
    site = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end(
        '<title>Status</title><body style="margin:0;background:#1565c0;color:#fff;font:48px sans-serif"><h1 style="margin:40px">Status: all green</h1></body>',
      )
    })
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
    server = await startServerProcess({
      playgroundDir: inject('playgroundDir'),
      env: { BATON_BROWSER_ORIGINS: origin, BATON_BROWSER_ALLOW_LOOPBACK: 'true' },
    })
    wallet = await registerBrowserAgent()
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('pageerror', (error) => pageErrors.push(error.message))
  }, 240_000)

  afterAll(async () => {
    await browser?.close()
    await server?.dispose()
    site?.closeAllConnections()
    site?.close()
  })

  it('shows the screenshot as a thumbnail on the task node, and full size on a click', async () => {
    const started = await fetch(`${server.baseUrl}/api/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        plan: {
          name: 'status-check',
          steps: [
            {
              op: 'task',
              agentWallet: wallet,
              workspace: 'browser',
              saveAs: 'status',
              prompt: `Check the status page [[tool:open_page {"url":"${origin}/"}]][[tool:screenshot]]`,
            },
          ],
        },
      }),
    })
    expect(started.status).toBe(202)
    const { id } = (await started.json()) as { id: string }
    // The run ends first (a browser is launched for it), then the page is read.
    let detail: { status: string; error?: unknown } = { status: 'queued' }
    for (let tries = 0; tries < 180 && ['queued', 'running'].includes(detail.status); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 500))
      detail = (await (await fetch(`${server.baseUrl}/api/v1/runs/${id}`)).json()) as typeof detail
    }
    expect(detail).toMatchObject({ status: 'done' })
    await page.goto(`${server.baseUrl}/#/runs?run=${id}`)
    const node = page.locator('[data-tree-node="steps[0]"]')
    const thumbnail = node.locator('img[data-screenshot="steps[0]/screenshots/screenshot-1.png"]')
    await thumbnail.waitFor({ timeout: 30_000 }).catch(async (error: unknown) => {
      await page.screenshot({ path: join(screenshots, 'run-screenshots-failed.png') })
      throw error
    })
    await expect
      .poll(() => thumbnail.evaluate((image: HTMLImageElement) => image.naturalWidth))
      .toBeGreaterThan(100)
    // The event that named it is in the run's events, with the file it names.
    await expect
      .poll(() =>
        page.locator('[aria-label="Run events"] li[data-event-type="step-file"]').allTextContents(),
      )
      .toEqual([expect.stringContaining('steps[0] (task) · screenshots/screenshot-1.png')])
    await page.screenshot({ path: join(screenshots, 'run-screenshots-tree.png') })

    await thumbnail.click()
    const enlarged = page.locator('dialog[open] img[data-enlarged]')
    await enlarged.waitFor({ timeout: 10_000 })
    // The page the task saw, drawn at its own size: its blue fills the picture.
    const size = await enlarged.evaluate((image: HTMLImageElement) => ({
      width: image.naturalWidth,
      shown: image.getBoundingClientRect().width,
    }))
    expect(size.width).toBeGreaterThan(600)
    expect(size.shown).toBeGreaterThan(400)
    await page.screenshot({ path: join(screenshots, 'run-screenshots-enlarged.png') })
    await page.keyboard.press('Escape')
    await expect.poll(() => page.locator('dialog[open]').count()).toBe(0)
    // Dark mode: the thumbnail's frame follows the theme (looked at, not asserted).
    await page.getByRole('button', { name: 'Switch to dark theme' }).click()
    await node.screenshot({ path: join(screenshots, 'run-screenshots-node-dark.png') })
    expect(pageErrors).toEqual([])
  }, 150_000)
})
