import { waitFor } from '@baton/testing/processes'
import type { FastifyInstance } from 'fastify'
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from '../seed/seed-demo'

const token = 'metrics-token-0123456789'
const analyst = '0x1111111111111111111111111111111111111111'
const authorization = `Bearer ${token}`

type Labels = Record<string, string>

type Scrape = { families: PrometheusFamily[]; text: string }

/** The value of a counter's or gauge's series matching `labels` (summed), 0 when absent. */
function seriesValue(scrape: Scrape, name: string, labels: Labels = {}): number {
  const family = scrape.families.find((each) => each.name === name)
  const matching = family?.metrics.filter((sample) =>
    Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value),
  )
  return (matching ?? []).reduce((sum, sample) => sum + Number(sample.value ?? 0), 0)
}

/**
 * A histogram's observation count for `labels`, read from its `_count` lines: the parser
 * folds every labelled series of a histogram into one, so these lines are read directly.
 */
function histogramCount(scrape: Scrape, name: string, labels: Labels): number {
  let total = 0
  for (const line of scrape.text.split('\n')) {
    const match = /^(\w+)_count\{(.*)\} (\S+)$/.exec(line)
    if (match?.[1] !== name) continue
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]),
    )
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) {
      total += Number(match[3])
    }
  }
  return total
}

describe('GET /metrics', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp({ apiToken: token })
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  async function scrape(): Promise<Scrape> {
    const response = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization },
    })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
    return { families: parsePrometheusTextFormat(response.body), text: response.body }
  }

  async function runToTheEnd(plan: object): Promise<{ id: string; status: string }> {
    const started = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      headers: { authorization },
      payload: { plan },
    })
    expect(started.statusCode).toBe(202)
    const id = started.json().id as string
    return waitFor(
      async () => {
        const run = (
          await app.inject({ method: 'GET', url: `/api/v1/runs/${id}`, headers: { authorization } })
        ).json()
        return ['queued', 'running'].includes(run.status) ? undefined : run
      },
      { what: `run ${id} to finish` },
    )
  }

  it('refuses a scrape without the token', async () => {
    const response = await app.inject({ method: 'GET', url: '/metrics' })
    expect(response.statusCode).toBe(401)
    expect(response.json().error.code).toBe('UNAUTHORIZED')
  })

  it('counts the runs, steps, model calls, tokens and cost the server makes', async () => {
    const before = await scrape()
    const done = await runToTheEnd({
      name: 'counted',
      steps: [
        { op: 'delegate', saveAs: 'a', agentWallet: analyst, prompt: 'Look at the outage' },
        { op: 'stop', output: '{{a}}' },
      ],
    })
    expect(done.status).toBe('done')
    const failed = await runToTheEnd({
      name: 'starved',
      budget: { calls: 0 },
      steps: [{ op: 'delegate', saveAs: 'a', agentWallet: analyst, prompt: 'No money' }],
    })
    expect(failed.status).toBe('failed')
    const after = await waitFor(
      async () => {
        const families = await scrape()
        return seriesValue(families, 'baton_runs_finished_total') >=
          seriesValue(before, 'baton_runs_finished_total') + 2
          ? families
          : undefined
      },
      { what: 'both runs to be counted' },
    )

    const moved = (name: string, labels: Labels = {}) =>
      seriesValue(after, name, labels) - seriesValue(before, name, labels)
    const observed = (name: string, labels: Labels) =>
      histogramCount(after, name, labels) - histogramCount(before, name, labels)
    expect(moved('baton_runs_started_total', { kind: 'plan' })).toBe(2)
    expect(moved('baton_runs_finished_total', { kind: 'plan', status: 'done' })).toBe(1)
    expect(moved('baton_runs_finished_total', { kind: 'plan', status: 'failed' })).toBe(1)
    expect(observed('baton_step_duration_seconds', { op: 'delegate' })).toBe(1)
    const model = { provider: 'baton.offline', model: 'default' }
    expect(moved('baton_model_calls_total', { ...model, outcome: 'ok' })).toBe(1)
    expect(moved('baton_model_tokens_total', { ...model, type: 'input' })).toBeGreaterThan(0)
    expect(moved('baton_model_tokens_total', { ...model, type: 'output' })).toBeGreaterThan(0)
    expect(moved('baton_model_cost_usd_total', model)).toBeGreaterThanOrEqual(0)
    expect(
      observed('baton_http_request_duration_seconds', {
        route: '/api/v1/runs',
        method: 'POST',
        status_code: '202',
      }),
    ).toBe(2)
    expect(seriesValue(after, 'baton_active_runs')).toBe(0)
    expect(
      after.families.find((family) => family.name === 'baton_queue_depth')?.metrics[0]?.labels
        ?.worker,
    ).toBe(app.baton.settings.workerName)
    expect(after.families.some((family) => family.name === 'process_cpu_user_seconds_total')).toBe(
      true,
    )
  })

  it('shows the run trace id in the run API (null while no SDK records traces)', async () => {
    const run = await runToTheEnd({ steps: [{ op: 'stop', output: 'x' }] })
    expect(run).toHaveProperty('traceId', null)
  })
})

describe('GET /metrics with BATON_METRICS_PUBLIC', () => {
  it('answers a scraper without a credential', async () => {
    const app = await createTestApp({ apiToken: token, metricsPublic: true })
    try {
      const response = await app.inject({ method: 'GET', url: '/metrics' })
      expect(response.statusCode).toBe(200)
      expect(parsePrometheusTextFormat(response.body).map((family) => family.name)).toContain(
        'baton_runs_started_total',
      )
    } finally {
      await app.close()
    }
  })
})
