import { join } from 'node:path'
import { createReceiptSigner, generateReceiptKey, signRunReceipt } from '@baton/core'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumAvailable } from './chromium'
import { openPlayground, screenshots } from './open-playground'
import type { ServerProcess } from './server-process'

const views = ['agents', 'chat', 'runs', 'swarms', 'bus', 'spend'] as const
const desktop = { width: 1280, height: 900 }
const phone = { width: 375, height: 800 }
// A common phone's width, where the issue saw the mention list.
const phone390 = { width: 390, height: 844 }

const run = chromiumAvailable()
// The runtime key is the test's, so it knows the address receipts must be signed by.
const runtimeKey = generateReceiptKey()
const runtimeAddress = createReceiptSigner(runtimeKey).address

describe.skipIf(!run)('the playground in a real browser against a real server', () => {
  let server: ServerProcess
  let browser: Browser
  let page: Page
  const pageErrors: string[] = []
  // What the server's Content-Security-Policy blocked (it must block nothing of the playground's own).
  const blockedByPolicy: string[] = []

  const api = async (path: string, init?: RequestInit) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...init?.headers },
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const open = async (view: (typeof views)[number]) => {
    await page.goto(`${server.baseUrl}/#/${view}`)
    await page.getByRole('heading', { level: 1 }).first().waitFor()
  }
  const shoot = async (name: string) => {
    await page.screenshot({ path: join(screenshots, `${name}-desktop.png`), fullPage: true })
    await page.setViewportSize(phone)
    await page.waitForTimeout(150)
    await page.screenshot({ path: join(screenshots, `${name}-phone.png`), fullPage: true })
    await page.setViewportSize(desktop)
  }

  beforeAll(async () => {
    ;({ server, browser, page } = await openPlayground({
      pageErrors,
      env: { BATON_RUNTIME_KEY: runtimeKey },
      viewport: desktop,
    }))
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blockedByPolicy.push(message.text())
    })
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await server?.dispose()
  })

  it('says in words that nothing is spent, run or sent yet on a fresh server', async () => {
    await open('spend')
    const empty = page.locator('[data-spend-empty]')
    await expect.poll(() => empty.count(), { timeout: 15_000 }).toBe(2)
    expect(await empty.first().textContent()).toMatch(/Nothing spent yet/)
    expect(await page.locator('.recharts-surface').count()).toBe(0)

    // The runs and the bus's conversations say so too, rather than show an empty box.
    await open('runs')
    await page.locator('[data-runs-empty]').waitFor({ timeout: 15_000 })
    expect(await page.locator('[data-run-item]').count()).toBe(0)
    await open('bus')
    await page.locator('[data-conversations-empty]').waitFor({ timeout: 15_000 })
    expect(await page.locator('table').isVisible()).toBe(false)
  }, 60_000)

  it('opens on the seeded agents and swarm, as cards', async () => {
    const served = await fetch(`${server.baseUrl}/`)
    expect(served.headers.get('content-security-policy')).toContain("script-src 'self'")
    await open('agents')
    for (const name of ['Ops Orchestrator', 'Incident Analyst', 'Reviewer', 'Tester', 'Dev team'])
      await page.getByRole('article', { name }).waitFor()
    await page.getByRole('searchbox').fill('tests changes')
    await expect.poll(() => page.getByRole('article').count(), { timeout: 15_000 }).toBe(1)
    await page.getByRole('searchbox').fill('')
    await shoot('agents')
    // The theme toggle by keyboard alone: it is the first control after the view tabs.
    await page.getByRole('link', { name: 'Spend' }).focus()
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
    await page.screenshot({ path: join(screenshots, 'agents-dark-desktop.png') })
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light')
    expect(pageErrors).toEqual([])
    expect(blockedByPolicy).toEqual([])
  }, 60_000)

  it('@mentions the orchestrator from the keyboard and shows its reply', async () => {
    await open('chat')
    const box = page.getByRole('combobox')
    await box.click()
    await box.pressSequentially('@Ops')
    await page.getByRole('option', { name: /Ops Orchestrator/ }).waitFor()
    await box.press('Enter')
    await box.pressSequentially('plan the release of version 2')
    await box.press('Enter')
    await page.getByText(/Message sent to Ops Orchestrator/).waitFor()
    const reply = page.locator('[data-message-type="reply"]').first()
    await reply.waitFor({ timeout: 30_000 })
    expect(await reply.textContent()).toMatch(/Ops Orchestrator/)

    // A swarm starts a run; an agent that does not delegate is the caller's to run.
    await box.pressSequentially('@Dev')
    await box.press('Enter')
    await box.pressSequentially('ship version 2')
    await box.press('Enter')
    await page.getByText(/Swarm run started: Dev team/).waitFor()
    await page.locator('.bubble[data-run-status="done"]').waitFor({ timeout: 45_000 })
    await box.pressSequentially('@Rev')
    await box.press('Enter')
    await box.pressSequentially('look at this diff')
    await box.press('Enter')
    await page.getByText(/Reviewer does not delegate: you run the task with it yourself/).waitFor()
    await shoot('chat')
  }, 120_000)

  it('runs the seed example plan and draws its tree with the spend of each node', async () => {
    await open('runs')
    await expect
      .poll(() => page.getByLabel('Plan', { exact: true }).inputValue(), { timeout: 15_000 })
      .not.toBe('-1')
    await page.getByLabel('Input request').fill('Ship the billing change on Friday')
    await page.getByRole('button', { name: 'Run the plan' }).click()
    await page.locator('[data-run-status="done"]').waitFor({ timeout: 45_000 })
    await page.locator('[data-event-type="run-finish"]').waitFor()
    expect(await page.locator('[data-event-type="step-finish"]').count()).toBeGreaterThanOrEqual(2)
    const nodes = page.locator('[data-tree-node]')
    await expect.poll(() => nodes.count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(3)
    const delegate = page.locator('[data-tree-node="steps[0]"]')
    expect(await delegate.getAttribute('data-status')).toBe('done')
    expect(await delegate.textContent()).toMatch(
      /Incident Analyst.*spent \$0\.0*[1-9]\d*.*budget left \$0\.\d+/,
    )
    await shoot('runs')
    await page.getByRole('button', { name: 'Switch to dark theme' }).click()
    await page.waitForTimeout(150)
    await page.screenshot({ path: join(screenshots, 'runs-dark-desktop.png'), fullPage: true })
    await page.getByRole('button', { name: 'Switch to light theme' }).click()
  }, 120_000)

  it('verifies a run receipt in the browser, with the runtime address, and names the field of a tampered one', async () => {
    const agents = (await api('/api/v1/agents')).body.agents as { id: string; wallet: string }[]
    const analyst = agents.find((agent) => agent.id === 'analyst')!.wallet
    await open('runs')
    await expect
      .poll(() => page.getByLabel('Plan', { exact: true }).inputValue(), { timeout: 15_000 })
      .not.toBe('-1')
    await page.getByText('name: risk-review').waitFor()
    await page.locator('.cm-content').click()
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.insertText(
      `name: receipted\nrequireReceipt: true\nsteps:\n  - op: delegate\n    saveAs: analysis\n    agentWallet: "${analyst}"\n    prompt: Look at the outage\n  - op: stop\n    output: "{{analysis}}"\n`,
    )
    await page.getByRole('button', { name: 'Run the plan' }).click()
    await page.locator('[data-run-status="done"]').waitFor({ timeout: 45_000 })
    const receipt = page.getByRole('region', { name: 'Run receipt' })
    await receipt.and(page.locator('[data-receipt-state="verified"]')).waitFor({ timeout: 15_000 })
    expect(await receipt.textContent()).toMatch(/Receipt verified/)
    // Shortened on the page, whole in the title and the copy button.
    const signer = receipt.locator('[data-signer] code')
    expect(await signer.getAttribute('title')).toBe(runtimeAddress)
    expect(await receipt.textContent()).toMatch(/the runtime address this server publishes/)
    expect(await signer.textContent()).toBe(
      `${runtimeAddress.slice(0, 6)}…${runtimeAddress.slice(-4)}`,
    )
    expect(await receipt.locator('[data-plan-hash]').getAttribute('data-plan-hash')).toMatch(
      /^0x[0-9a-f]{64}$/,
    )
    expect(await receipt.textContent()).toMatch(
      /2 steps, run done; the inputs and output shown here/,
    )
    await shoot('receipt')
    await page.getByRole('button', { name: 'Switch to dark theme' }).click()
    await page.waitForTimeout(150)
    await page.screenshot({ path: join(screenshots, 'receipt-dark-desktop.png'), fullPage: true })
    await page.getByRole('button', { name: 'Switch to light theme' }).click()
    const runId = (await page.locator('[data-run-id]').getAttribute('data-run-id'))!

    // The same run's page with one byte of a step's output hash changed on the way.
    const receiptUrl = `**/api/v1/runs/${runId}/receipt`
    await page.route(receiptUrl, async (route) => {
      const body = await (await route.fetch()).json()
      const hash = body.steps[0].outputHash as string
      body.steps[0].outputHash = `${hash.slice(0, -1)}${hash.endsWith('0') ? '1' : '0'}`
      await route.fulfill({ json: body })
    })
    await page.goto(`${server.baseUrl}/#/runs?run=${runId}`)
    await page.reload()
    const invalid = receipt.and(page.locator('[data-receipt-state="invalid"]'))
    await invalid.waitFor({ timeout: 30_000 })
    expect(await invalid.textContent()).toMatch(/Receipt invalid/)
    expect(await invalid.locator('[data-receipt-field]').textContent()).toBe('steps[0].outputHash')
    expect(await invalid.textContent()).toMatch(/RECEIPT_TAMPERED.*was changed after it was signed/)
    await shoot('receipt-invalid')
    await page.unroute(receiptUrl)

    // The same receipt re-signed by another key is whole and well signed, but not by the
    // runtime this server publishes (GET /api/v1/runtime): refused at `runtime`.
    const otherKey = createReceiptSigner(generateReceiptKey())
    await page.route(receiptUrl, async (route) => {
      const {
        runtime: _runtime,
        fieldHashes: _hashes,
        signature: _signature,
        ...content
      } = await (await route.fetch()).json()
      await route.fulfill({ json: await signRunReceipt(content, otherKey) })
    })
    await page.reload()
    await invalid.waitFor({ timeout: 30_000 })
    expect(await invalid.locator('[data-receipt-field]').textContent()).toBe('runtime')
    await page.unroute(receiptUrl)

    // A run that failed still has its receipt; a plan that asks for none has none.
    const failed = await api('/api/v1/runs', {
      method: 'POST',
      body: JSON.stringify({
        plan: {
          requireReceipt: true,
          steps: [
            { op: 'delegate', saveAs: 'x', agentWallet: `0x${'9'.repeat(40)}`, prompt: 'hi' },
          ],
        },
      }),
    })
    expect(failed, 'the failing run did not start').toMatchObject({ status: 202 })
    await page.goto(`${server.baseUrl}/#/runs?run=${failed.body.id}`)
    await page.reload()
    await page.locator('[data-run-status="failed"]').waitFor({ timeout: 45_000 })
    await receipt.and(page.locator('[data-receipt-state="verified"]')).waitFor({ timeout: 15_000 })
    expect(await receipt.textContent()).toMatch(/1 step, run failed/)
    await shoot('receipt-failed')
    const plain = await api('/api/v1/runs', {
      method: 'POST',
      body: JSON.stringify({ plan: { steps: [{ op: 'stop', output: 1 }] } }),
    })
    expect(plain.status).toBe(202)
    await page.goto(`${server.baseUrl}/#/runs?run=${plain.body.id}`)
    await page.reload()
    await receipt.and(page.locator('[data-receipt-state="missing"]')).waitFor({ timeout: 30_000 })
    expect(await receipt.textContent()).toMatch(/No receipt.*requireReceipt/)
    expect(pageErrors).toEqual([])
  }, 120_000)

  it('marks plan errors at their lines as one types and on run, and answers ask_user in place', async () => {
    await open('runs')
    // The view puts the seeded plan in the editor once the plans are read; wait for that.
    await expect
      .poll(() => page.getByLabel('Plan', { exact: true }).inputValue(), { timeout: 15_000 })
      .not.toBe('-1')
    await page.getByText('name: risk-review').waitFor()
    const editor = page.locator('.cm-content')
    const replace = async (text: string) => {
      await editor.click()
      await page.keyboard.press('ControlOrMeta+A')
      await page.keyboard.insertText(text)
    }
    // A YAML error is marked while typing, before anything is sent.
    await replace('name: broken\nsteps: [\n')
    await page.locator('.cm-lintRange-error').first().waitFor({ timeout: 10_000 })

    // The server's whole check (an unknown op) is marked at the step's line as one types,
    // before Run: the editor asks POST /api/v1/plans/validate once typing pauses.
    const plan = (middle: string) =>
      `name: ask\nsteps:\n  - op: ask_user\n    saveAs: region\n    question: "Which region?"\n${middle}  - op: stop\n    output: "{{region}}"\n`
    const markedLines = () =>
      page.evaluate(() =>
        Array.from(document.querySelectorAll('.cm-content .cm-line')).flatMap((line, index) =>
          line.querySelector('.cm-lintRange-error') ? [index + 1] : [],
        ),
      )
    await replace(plan('  - op: explode\n'))
    await expect.poll(markedLines, { timeout: 15_000 }).toEqual([6])
    await page.getByRole('button', { name: 'Run the plan' }).click()
    const issues = page.getByRole('list', { name: 'Plan errors' })
    await issues.waitFor({ timeout: 15_000 })
    expect(await issues.textContent()).toMatch(/line 6/)
    await page.locator('.cm-lintRange-error').first().waitFor()

    await replace(plan(''))
    await page.getByRole('button', { name: 'Run the plan' }).click()
    const answer = page.getByLabel(/The plan asks: Which region\?/)
    await answer.waitFor({ timeout: 30_000 })
    await answer.fill('eu-west')
    await page.getByRole('button', { name: 'Answer' }).click()
    await page.locator('[data-run-status="done"]').waitFor({ timeout: 30_000 })
    expect(await page.locator('pre').first().textContent()).toContain('eu-west')

    // The same plan again, cancelled while it waits for the answer.
    await page.getByRole('button', { name: 'Run the plan' }).click()
    await answer.waitFor({ timeout: 30_000 })
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.locator('[data-run-status="cancelled"]').waitFor({ timeout: 30_000 })
  }, 120_000)

  it('runs a democratic swarm and shows the weighted votes and the result', async () => {
    const created = await api('/api/v1/swarms', {
      method: 'POST',
      body: JSON.stringify({
        id: 'council',
        name: 'Council',
        strategy: 'democratic',
        consensusThreshold: 0.5,
        agents: [
          { agentId: 'analyst', role: 'worker', weight: 1 },
          { agentId: 'reviewer', role: 'critic', weight: 0.5 },
          { agentId: 'tester', role: 'worker', weight: 1 },
        ],
      }),
    })
    expect(created.status).toBe(201)
    await open('swarms')
    await page.getByLabel('Swarm', { exact: true }).selectOption('council')
    await page.getByRole('button', { name: 'Run the swarm' }).click()
    await page.locator('[data-swarm-run][data-status="done"]').waitFor({ timeout: 45_000 })
    expect(await page.locator('tr[data-kind="vote"]').count()).toBeGreaterThanOrEqual(3)
    expect(await page.locator('tr[data-kind="proposal"]').count()).toBeGreaterThanOrEqual(1)
    await page.getByTestId('swarm-result').waitFor()
    await shoot('swarms')
  }, 120_000)

  it('shows each seeded agent’s card with its capability and examples, each swarm with its own Try prompt, and the orchestrator delegating for real', async () => {
    await open('agents')
    const orchestrator = page.getByRole('article', { name: 'Ops Orchestrator' })
    await orchestrator.waitFor()
    expect(await orchestrator.textContent()).toMatch(/ask_peer.*start_subagent/)
    for (const name of ['Incident Analyst', 'Reviewer', 'Tester']) {
      const card = page.getByRole('article', { name })
      expect(await card.locator('button.example').count()).toBeGreaterThan(0)
      // Their file tools, which the server grants where they work in a workspace.
      expect(await card.textContent()).toMatch(/tools\s*read_file\s*list_files/)
    }
    const tries = await Promise.all(
      ['Dev team', 'Council'].map((name) =>
        page.getByRole('article', { name }).locator('button.example').first().textContent(),
      ),
    )
    expect(tries[0]).not.toBe(tries[1])

    // The orchestrator's first example: it asks the analyst over the bus and runs the reviewer.
    await orchestrator.locator('button.example').first().click()
    const box = page.getByRole('combobox')
    await expect.poll(() => box.inputValue(), { timeout: 10_000 }).toMatch(/^@Ops Orchestrator /)
    await box.press('Enter')
    await page
      .getByText(/Message sent to Ops Orchestrator/)
      .last()
      .waitFor({ timeout: 15_000 })
    // The prompt reads first; the offline model's two directives are set apart, not hidden.
    const prompt = page.locator('.bubble.me').last()
    expect(await prompt.locator('code.directive').allTextContents()).toEqual([
      expect.stringMatching(/^\[\[tool:ask_peer /),
      expect.stringMatching(/^\[\[tool:start_subagent /),
    ])
    const analystPart = page
      .locator('.bubble[data-message-type="reply"]')
      .filter({ hasText: /Incident Analyst → Ops Orchestrator/ })
      .last()
    await analystPart.waitFor({ timeout: 30_000 })
    const answer = page
      .locator('.bubble[data-message-type="reply"]')
      .filter({ hasText: /start_subagent → .*Reviewer/ })
      .last()
    await answer.waitFor({ timeout: 30_000 })
    expect(await answer.textContent()).toMatch(/ask_peer → .*Incident Analyst/)
    // The analyst's part comes before the answer it went into.
    expect(
      await analystPart.evaluate(
        (part, final) =>
          Boolean(part.compareDocumentPosition(final!) & Node.DOCUMENT_POSITION_FOLLOWING),
        await answer.elementHandle(),
      ),
    ).toBe(true)
    // What each agent spent: the analyst on its part; the orchestrator and the reviewer it ran
    // as a sub-agent on the answer.
    const cost = /\$0\.0*[1-9]\d*/
    const analystSpend = analystPart.getByRole('list', { name: 'What this answer cost' })
    await analystSpend.waitFor({ timeout: 15_000 })
    expect(await analystSpend.locator('li').allTextContents()).toEqual([
      expect.stringMatching(/^Incident Analyst \$0\.0*[1-9]\d* · \d+ calls?$/),
    ])
    const answerSpend = answer.getByRole('list', { name: 'What this answer cost' })
    await answerSpend.waitFor({ timeout: 15_000 })
    const own = answerSpend.locator('li[data-spend-role="answered"]')
    const subagent = answerSpend.locator('li[data-spend-role="sub-agent"]')
    expect(await own.textContent()).toMatch(/^Ops Orchestrator /)
    expect(await own.textContent()).toMatch(cost)
    expect(await subagent.textContent()).toMatch(/^Reviewer \(its sub-agent\) /)
    expect(await subagent.textContent()).toMatch(cost)
    const total = page.locator('[data-conversation-spend]').last()
    expect(await total.textContent()).toMatch(/^3 agents worked on this: \$0\.0*[1-9]\d* in all\.$/)
    await shoot('chat-delegation')
  }, 120_000)

  let relay: string
  it('registers an agent from the form, signed in the browser, found at GET /agent/:wallet', async () => {
    await open('agents')
    await page.getByRole('button', { name: 'Register an agent' }).click()
    const form = page.getByRole('form', { name: 'Register an agent' })
    await form.getByLabel('Name').fill('Relay')
    await form.getByLabel('Id (a slug)').fill('relay')
    await form.getByLabel('Tagline').fill('Passes work on')
    await form.getByLabel('Can delegate to other agents').check()
    await form.getByRole('button', { name: 'Sign and register' }).click()
    const registered = form.getByRole('status')
    await registered.waitFor({ timeout: 20_000 })
    relay = (await registered.textContent())!.match(/0x[0-9a-fA-F]{40}/)![0]
    const found = await api(`/agent/${relay}`)
    expect(found.status).toBe(200)
    expect(found.body).toMatchObject({
      id: 'relay',
      name: 'Relay',
      agentCard: { canDelegate: true },
    })
    await page.getByRole('article', { name: 'Relay' }).waitFor()

    // The same id again: the server refuses, and the form says why in words.
    await form.getByRole('button', { name: 'Sign and register' }).click()
    const refusal = form.getByRole('alert')
    await refusal.waitFor({ timeout: 20_000 })
    expect(await refusal.textContent()).toMatch(/The agent was not registered: .*relay/i)
    expect(blockedByPolicy).toEqual([])
    await shoot('register')
  }, 120_000)

  it('shows two parties caught in a loop on the Bus view and resolves it there', async () => {
    await open('bus')
    // Outside parties: only the server speaks for a hosted agent (docs/security.md), and an
    // outside party is written to only in a conversation it is part of. ops-desk opens one with
    // the analyst (a broadcast: the analyst does not run), then relay-desk and ops-desk loop.
    const first = await api('/api/v1/messages', {
      method: 'POST',
      body: JSON.stringify({
        from: { agentId: 'ops-desk' },
        to: { agentId: 'analyst' },
        type: 'broadcast',
        content: 'the desk is open',
      }),
    })
    expect(first.status).toBe(202)
    const correlationId = (first.body.envelope as { correlationId: string }).correlationId
    let status = 202
    for (let hop = 1; hop <= 20 && status === 202; hop += 1) {
      const [from, to] = hop % 2 ? ['relay-desk', 'ops-desk'] : ['ops-desk', 'relay-desk']
      status = (
        await api('/api/v1/messages', {
          method: 'POST',
          body: JSON.stringify({
            from: { agentId: from },
            to: { agentId: to },
            content: `and back (${hop})`,
            correlationId,
            hop,
          }),
        })
      ).status
    }
    expect(status).toBe(409)
    const held = page.locator('fieldset[data-escalation]')
    await held.waitFor({ timeout: 20_000 })
    // The held chain names its parties once each, not every hop (the whole path is its title).
    const parties = held.locator('[data-loop-parties]')
    expect(await parties.textContent()).toBe('ops-desk → analyst → relay-desk')
    expect(await parties.getAttribute('title')).toMatch(
      /^ops-desk → analyst → relay-desk → ops-desk/,
    )
    // The hop count is the server's loop guard's (forwards and replies), 8 when it held the chain.
    const row = page.locator(`tr[data-correlation="${correlationId}"]`)
    await expect
      .poll(() => row.locator('td.number').textContent(), { timeout: 15_000 })
      .toMatch(/^8/)
    await shoot('bus')
    await held.getByRole('button', { name: 'Allow 2 more hops' }).click()
    await expect.poll(() => held.count(), { timeout: 15_000 }).toBe(0)
    // Two more hops allowed: the chain's limit is 10 now.
    await expect
      .poll(() => row.locator('td.number').textContent(), { timeout: 15_000 })
      .toMatch(/\/ 10/)
    const escalations = await api('/api/v1/escalations')
    expect(escalations.body.escalations).toContainEqual(
      expect.objectContaining({ correlationId, status: 'allowed', extraHops: 2 }),
    )
  }, 120_000)

  it('starts a conversation from the Bus view, keeps stored ones after a reload, and names each party of a path once', async () => {
    await open('bus')
    // The loop of the test before: its two parties, each named once.
    const loop = page.locator('td[data-path]').filter({ hasText: 'ops-desk' }).first()
    expect(await loop.textContent()).toBe('ops-desk → analyst → relay-desk')

    const form = page.getByRole('form', { name: 'Start a conversation' })
    await form.getByLabel('To').selectOption('analyst')
    await form.getByLabel('Message').fill('[[answer:on it]] check the outage')
    await form.getByRole('button', { name: 'Send' }).click()
    const sent = (await form.getByRole('status').textContent({ timeout: 15_000 }))!
    const started = sent.match(/conversation (\S+)/)![1]!
    const row = page.locator(`tr[data-correlation^="${started}"]`)
    await row.waitFor({ timeout: 15_000 })
    await expect
      .poll(() => row.locator('td[data-path]').textContent(), { timeout: 15_000 })
      .toBe('playground-user → analyst')
    await expect.poll(() => row.textContent(), { timeout: 20_000 }).toMatch(/on it/)
    await page.reload()
    await row.waitFor({ timeout: 15_000 })
    await loop.waitFor({ timeout: 15_000 })

    // On a phone (390 px), the picked option is highlighted, and picking adds no space.
    await page.setViewportSize(phone390)
    await open('chat')
    const box = page.getByRole('combobox')
    await box.fill('')
    await box.pressSequentially('ask @Rev')
    const option = page.getByRole('option', { name: /Reviewer/ })
    await option.waitFor()
    const colours = await option.evaluate((element) => ({
      selected: getComputedStyle(element).backgroundColor,
      list: getComputedStyle(element.parentElement!).backgroundColor,
    }))
    expect(colours.selected).not.toBe(colours.list)
    // The arrow keys move the highlight: the picked option stands out from the one it left.
    await box.fill('')
    await box.pressSequentially('ask @')
    const options = page.getByRole('option')
    await expect.poll(() => options.count(), { timeout: 10_000 }).toBeGreaterThan(2)
    await box.press('ArrowDown')
    const picked = page.locator('[role="option"][aria-selected="true"]')
    expect(await picked.count()).toBe(1)
    expect(await options.nth(1).getAttribute('aria-selected')).toBe('true')
    const background = (index: number) =>
      options.nth(index).evaluate((element) => getComputedStyle(element).backgroundColor)
    expect(await background(1)).not.toBe(await background(0))
    expect(await picked.isVisible()).toBe(true)
    await box.fill('')
    await box.pressSequentially('ask @Rev')
    await option.waitFor()
    await box.press('End')
    await box.pressSequentially(', please')
    await box.press('Home')
    for (let step = 0; step < 8; step += 1) await box.press('ArrowRight')
    await box.pressSequentially('i')
    await page.getByRole('option', { name: /Reviewer/ }).click()
    expect(await box.inputValue()).toBe('ask @Reviewer, please')
    await box.fill('')
    await page.setViewportSize(desktop)
  }, 90_000)

  it('charts the spend by wallet and by run with the totals beside them', async () => {
    await open('spend')
    const byWallet = page.getByRole('region', { name: 'By wallet' })
    await expect
      .poll(() => byWallet.locator('tbody tr').count(), { timeout: 15_000 })
      .toBeGreaterThan(1)
    await page
      .locator('[data-spend="run"] .recharts-bar-rectangle')
      .first()
      .waitFor({ timeout: 15_000 })
    await shoot('spend')
    // The axis is a scale: equal steps, each label with the same decimals.
    const ticks = (
      await page.locator('[data-spend="run"] svg.recharts-surface text').allTextContents()
    ).filter((text) => text.startsWith('$'))
    expect(ticks.length).toBeGreaterThanOrEqual(3)
    const values = ticks.map((tick) => Number(tick.replace('$', '')))
    const steps = values.slice(1).map((value, index) => value - values[index]!)
    for (const step of steps) expect(step).toBeCloseTo(steps[0]!, 10)
    expect(new Set(ticks.slice(1).map((tick) => tick.split('.')[1]?.length)).size).toBe(1)
    // Every bar is named under it (none dropped for want of room), by its plan's or swarm's name.
    const runChart = page.locator('[data-spend="run"]')
    const bars = await runChart.locator('.recharts-bar-rectangle').count()
    const names = (await runChart.locator('svg.recharts-surface text').allTextContents()).filter(
      (text) => !text.startsWith('$'),
    )
    expect(names).toHaveLength(bars)
    expect(names).toContain('risk-review')
    // The table's costs read alike: each to the same number of decimals.
    const costs = await runChart.locator('[data-cost]').allTextContents()
    expect(new Set(costs.map((value) => value.split('.')[1]?.length)).size).toBe(1)
    // Runs by name (the plan's), each a link to the run.
    const link = page.locator('[data-spend="run"] a[data-run-link]').first()
    const named = (await link.textContent())!
    // A plan's or swarm's name and a time, not a run id's first characters.
    expect(named).toMatch(/^\S.* · \d/)
    expect(named).not.toMatch(/^[0-9a-f]{8}/)
    const runId = (await link.getAttribute('data-run-link'))!
    await link.click()
    await page.locator(`[data-run-id="${runId}"]`).waitFor({ timeout: 15_000 })
  }, 60_000)

  it('says the server is down when it stops, and recovers by itself when it is back', async () => {
    await open('agents')
    await server.stop()
    const banner = page.getByRole('alert').filter({ hasText: 'The Baton server is not answering' })
    await banner.waitFor({ timeout: 20_000 })
    await shoot('server-down')
    await server.start()
    await banner.waitFor({ state: 'detached', timeout: 30_000 })
    await page.getByRole('article', { name: 'Relay' }).waitFor()
    expect(pageErrors).toEqual([])
  }, 120_000)
})
