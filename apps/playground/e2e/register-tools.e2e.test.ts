import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable } from './chromium'
import { openPlayground, screenshots } from './open-playground'
import type { ServerProcess } from './server-process'

const filesServer = fileURLToPath(
  new URL('../../../packages/core/src/mcp/__fixtures__/files-server.mjs', import.meta.url),
)

const run = chromiumAvailable()

describe.skipIf(!run)('the registration form’s tool and model lists, in a real browser', () => {
  let folder: string
  let server: ServerProcess
  let browser: Browser
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'baton-register-tools-'))
    // The server's MCP catalogue names the stdio fixture server, as an operator's file would.
    const config = join(folder, 'mcp.json')
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: { files: { command: process.execPath, args: [filesServer, folder] } },
      }),
    )
    ;({ server, browser, page } = await openPlayground({
      pageErrors,
      env: { BATON_MCP_CONFIG: config },
    }))
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await server?.dispose()
    if (folder) await rm(folder, { recursive: true, force: true })
  })

  it('offers the MCP server’s tools; picking one registers an agent whose card lists it', async () => {
    await page.goto(`${server.baseUrl}/#/agents`)
    await page.getByRole('button', { name: 'Register an agent' }).click()
    const form = page.getByRole('form', { name: 'Register an agent' })
    const offered = form.getByRole('group', { name: 'Tools this server can grant' })
    // The fixture server's tools, under the names cards use, beside the built-in ones.
    await offered
      .getByRole('button', { name: 'mcp__files__read_file' })
      .waitFor({ timeout: 30_000 })
    const names = await offered.getByRole('button').allTextContents()
    expect(names).toEqual(
      expect.arrayContaining(['read_file', 'mcp__files__read_file', 'mcp__files__slow']),
    )
    // The models this server can run, offline always.
    const models = await form
      .locator('#register-model-options option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))
    expect(models).toContain('offline:default')

    await form.getByLabel('Name').fill('File Reader')
    await form.getByLabel('Id (a slug)').fill('file-reader')
    const readFile = offered.getByRole('button', { name: 'mcp__files__read_file' })
    const slow = offered.getByRole('button', { name: 'mcp__files__slow' })
    const toolsField = form.getByLabel('Tools (comma-separated)')
    // A picked tool is listed and its button shows it; a second press takes it off again.
    await readFile.click()
    await slow.click()
    expect(await toolsField.inputValue()).toBe('mcp__files__read_file, mcp__files__slow')
    expect(await readFile.getAttribute('aria-pressed')).toBe('true')
    await slow.click()
    expect(await toolsField.inputValue()).toBe('mcp__files__read_file')
    expect(await slow.getAttribute('aria-pressed')).toBe('false')
    await form.getByRole('button', { name: 'Sign and register' }).click()
    const registered = form.getByRole('status')
    await registered.waitFor({ timeout: 30_000 })
    const wallet = (await registered.textContent())!.match(/0x[0-9a-fA-F]{40}/)![0]

    // The server stored the card with the tool, and the agent's card in the list shows it.
    const stored = (await (await fetch(`${server.baseUrl}/agent/${wallet}`)).json()) as {
      tools: string[]
    }
    expect(stored.tools).toEqual(['mcp__files__read_file'])
    const card = page.getByRole('article', { name: 'File Reader' })
    await card.waitFor({ timeout: 15_000 })
    await expect
      .poll(() => card.locator('code', { hasText: 'mcp__files__read_file' }).count())
      .toBe(1)
    await card.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(screenshots, 'register-tools-desktop.png'), fullPage: true })
    await form.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(screenshots, 'register-tools-form.png') })
    expect(pageErrors).toEqual([])
  }, 120_000)
})
