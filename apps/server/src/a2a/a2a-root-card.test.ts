import { afterEach, describe, expect, it } from 'vitest'
import { type ListeningTestApp, listenTestApp } from '../__fixtures__/listen-test-app'
import { readSettings, type Settings } from '../settings'

const served: ListeningTestApp[] = []
afterEach(async () => {
  await Promise.all(served.splice(0).map(({ close }) => close()))
})

async function serve(overrides: Partial<Settings>) {
  const listening = await listenTestApp({ settings: overrides })
  served.push(listening)
  const { base } = listening
  const card = async (path: string) => {
    const response = await fetch(`${base}${path}`)
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  return { base, card }
}

const endpoints = (card: Record<string, unknown>) =>
  (card.supportedInterfaces as { url: string }[]).map(({ url }) => url)

describe('the root agent card (/.well-known/agent-card.json)', () => {
  it('describes the agent BATON_A2A_ROOT_AGENT names, at its own endpoint', async () => {
    const settings = readSettings({ BATON_A2A_ROOT_AGENT: 'analyst' })
    expect(settings.a2aRootAgent).toBe('analyst')
    const { base, card } = await serve({ a2aRootAgent: settings.a2aRootAgent })
    const root = await card('/.well-known/agent-card.json')
    expect(root.status).toBe(200)
    expect(root.body.name).toBe('Incident Analyst')
    expect(endpoints(root.body)).toEqual([`${base}/a2a/analyst`, `${base}/a2a/analyst`])
  })

  it('is the first orchestrator without the setting, and every per-agent card names its own endpoint', async () => {
    const { base, card } = await serve({})
    const root = await card('/.well-known/agent-card.json')
    expect(root.body.name).toBe('Ops Orchestrator')
    expect(endpoints(root.body)[0]).toBe(`${base}/a2a/orchestrator`)
    for (const agentId of ['orchestrator', 'analyst', 'reviewer', 'tester']) {
      const own = await card(`/a2a/${agentId}/.well-known/agent-card.json`)
      expect(new Set(endpoints(own.body))).toEqual(new Set([`${base}/a2a/${agentId}`]))
    }
  })

  it('is 404, saying why, when the setting names no agent the server hosts', async () => {
    const { card } = await serve({ a2aRootAgent: 'nobody' })
    const root = await card('/.well-known/agent-card.json')
    expect(root.status).toBe(404)
    expect(root.body.error).toMatchObject({
      message: expect.stringContaining('BATON_A2A_ROOT_AGENT'),
    })
  })
})
