import { join } from 'node:path'
import type { Browser, Page, Route } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loopUntilHeld } from '../../server/src/__fixtures__/outside-parties'
import { chromiumAvailable } from './chromium'
import { openPlayground, screenshots } from './open-playground'
import type { ServerProcess } from './server-process'

const run = chromiumAvailable()

// What a person does in the playground that the server must do once — register an agent,
// create a swarm, revoke the agent, allow a held chain — with the server's first answer lost on the way: the
// server did it, the browser saw the connection reset. The page tries again with the same
// Idempotency-Key and shows it done, not refused as a conflict with itself.

describe.skipIf(!run)('a change whose answer is lost on the way, in a real browser', () => {
  let server: ServerProcess
  let browser: Browser
  let page: Page
  const pageErrors: string[] = []
  /** Per path: the Idempotency-Key of each try, and whether its answer was a replay. */
  const tries = new Map<string, { key: string | undefined; replayed: boolean }[]>()
  /** Paths whose next answer is dropped after the server gave it. */
  const dropNext = new Set<string>()

  /** A GET of the server itself, past the page's routes. */
  const api = async (path: string) => {
    const response = await fetch(`${server.baseUrl}${path}`)
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }

  // Every change (a POST, PATCH or DELETE) goes to the server; the answer of one whose path is
  // in `dropNext` is read in full and then not given to the page (the connection is reset),
  // once.
  const watch = async (route: Route) => {
    const request = route.request()
    const path = new URL(request.url()).pathname
    if (request.method() === 'GET') return route.continue()
    const response = await route.fetch()
    const list = tries.get(path) ?? []
    tries.set(path, list)
    list.push({
      key: (await request.allHeaders())['idempotency-key'],
      replayed: response.headers()['idempotent-replayed'] === 'true',
    })
    if (dropNext.delete(path)) return route.abort('connectionreset')
    return route.fulfill({ response })
  }

  beforeAll(async () => {
    ;({ server, browser, page } = await openPlayground({ pageErrors }))
    await page.route('**/api/v1/**', watch)
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await server?.dispose()
  })

  /** The tries of `path`: two, with one key, the second answered with the first's answer. */
  const expectOneRetriedKey = (path: string) => {
    const list = tries.get(path)
    expect(list).toHaveLength(2)
    expect(list?.[0]?.key).toMatch(/^create_/)
    expect(list?.[1]).toEqual({ key: list?.[0]?.key, replayed: true })
  }

  it('registers an agent once, and the form says it is registered', async () => {
    await page.goto(`${server.baseUrl}/#/agents`)
    await page.getByRole('button', { name: 'Register an agent' }).click()
    const form = page.getByRole('form', { name: 'Register an agent' })
    await form.getByLabel('Name').fill('Courier')
    await form.getByLabel('Id (a slug)').fill('courier')
    dropNext.add('/api/v1/agents')
    await form.getByRole('button', { name: 'Sign and register' }).click()
    const registered = form.getByRole('status')
    await registered.waitFor({ timeout: 30_000 })
    expect(await form.getByRole('alert').count()).toBe(0)
    const wallet = (await registered.textContent())!.match(/0x[0-9a-fA-F]{40}/)![0]
    expectOneRetriedKey('/api/v1/agents')
    expect((await api(`/agent/${wallet}`)).body).toMatchObject({ id: 'courier', name: 'Courier' })
    await page.getByRole('article', { name: 'Courier' }).waitFor({ timeout: 15_000 })
    await page.screenshot({ path: join(screenshots, 'lost-answer-register.png') })
  }, 120_000)

  it('creates a swarm once, and the form says it is created', async () => {
    await page.goto(`${server.baseUrl}/#/swarms`)
    const create = page.getByRole('form', { name: 'Create a swarm' })
    await create.waitFor({ timeout: 15_000 })
    await create.getByLabel('Name').fill('Night shift')
    await create.getByRole('checkbox', { name: 'Incident Analyst' }).check()
    dropNext.add('/api/v1/swarms')
    await create.getByRole('button', { name: 'Create the swarm' }).click()
    await create.getByRole('status').waitFor({ timeout: 30_000 })
    expect(await create.getByRole('alert').count()).toBe(0)
    expectOneRetriedKey('/api/v1/swarms')
    const swarms = (await api('/api/v1/swarms')).body.swarms as { id: string }[]
    expect(swarms.filter((swarm) => swarm.id === 'night-shift')).toHaveLength(1)
    // Picked, and counted in words: one member, not "1 members".
    const picked = page.getByLabel('Swarm', { exact: true }).locator('option:checked')
    await expect
      .poll(() => picked.textContent(), { timeout: 10_000 })
      .toBe('Night shift (democratic, 1 member)')
    await page.screenshot({ path: join(screenshots, 'lost-answer-swarm.png') })
  }, 120_000)

  it('revokes an agent once, and its card goes', async () => {
    await page.goto(`${server.baseUrl}/#/agents`)
    const card = page.getByRole('article', { name: 'Courier' })
    await card.waitFor({ timeout: 15_000 })
    const wallet = (await api('/api/v1/agents?text=Courier')).body.agents as { wallet: string }[]
    const path = `/api/v1/agents/${wallet[0]!.wallet}`
    await card.getByRole('button', { name: 'Revoke' }).click()
    dropNext.add(path)
    await card.getByRole('button', { name: 'Sign and revoke Courier' }).click()
    await card.waitFor({ state: 'detached', timeout: 30_000 })
    expect(await page.getByRole('alert').count()).toBe(0)
    expectOneRetriedKey(path)
    expect((await fetch(`${server.baseUrl}/agent/${wallet[0]!.wallet}`)).status).toBe(404)
  }, 120_000)

  it('allows a held chain once, and the Bus view shows it allowed', async () => {
    await page.goto(`${server.baseUrl}/#/bus`)
    // Two outside parties loop until the loop guard holds their conversation.
    const held = page.locator('fieldset[data-escalation]')
    expect((await loopUntilHeld(server.baseUrl, 'lost-answer-loop')).code).toBe(
      'LOOP_GUARD_ESCALATED',
    )
    await held.waitFor({ timeout: 20_000 })
    const escalationId = await held.getAttribute('data-escalation')
    const path = `/api/v1/escalations/${escalationId}/allow`
    dropNext.add(path)
    await held.getByRole('button', { name: 'Allow 2 more hops' }).click()
    await expect.poll(() => held.count(), { timeout: 30_000 }).toBe(0)
    expect(await page.getByRole('alert').count()).toBe(0)
    expectOneRetriedKey(path)
    const escalations = (await api('/api/v1/escalations')).body.escalations as {
      id: string
      status: string
      extraHops?: number
    }[]
    expect(escalations.find((each) => each.id === escalationId)).toMatchObject({
      status: 'allowed',
      extraHops: 2,
    })
    expect(pageErrors).toEqual([])
  }, 120_000)
})
