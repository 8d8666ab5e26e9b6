import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { RequestDurations } from './request-durations'

const buckets = [0.005, 0.01, 0.05, 0.1, 1]
const name = 'http_request_duration_seconds'
const help = 'HTTP request duration, by method, route and status code.'

/** The same observations into ours and into prom-client's `Histogram`, each in a registry. */
function both(observations: [string, string, number, number][]) {
  const ours = new Registry()
  const theirs = new Registry()
  const durations = new RequestDurations({ name, help, buckets, registers: [ours] })
  const histogram = new Histogram({
    name,
    help,
    labelNames: ['method', 'route', 'status_code'],
    buckets,
    registers: [theirs],
  })
  for (const [method, route, status, seconds] of observations) {
    durations.observe(method, route, status, seconds)
    histogram.observe({ method, route, status_code: String(status) }, seconds)
  }
  return { ours, theirs, durations }
}

const observations: [string, string, number, number][] = [
  ['GET', '/agent/:wallet', 200, 0.0004],
  ['GET', '/agent/:wallet', 200, 0.005], // on a bound: counted in that bucket (le is ≤)
  ['GET', '/agent/:wallet', 304, 0.02],
  ['GET', '/agent/:wallet', 404, 0.2],
  ['POST', '/api/v1/runs', 202, 0.07],
  ['POST', '/api/v1/runs', 202, 3], // above every bound: +Inf only
  ['GET', '/api/v1/runs/:id', 200, 0.01],
  ['GET', 'unmatched', 404, 0.001],
]

describe('RequestDurations', () => {
  it("prints exactly what prom-client's Histogram prints for the same observations", async () => {
    const { ours, theirs } = both(observations)
    const text = await ours.metrics()
    expect(text).toBe(await theirs.metrics())
    // And it is a histogram a Prometheus parser reads: cumulative buckets, +Inf = count.
    const [family] = parsePrometheusTextFormat(text)
    expect(family).toMatchObject({ name, type: 'HISTOGRAM' })
    expect(text).toContain(
      `${name}_bucket{le="0.005",method="GET",route="/agent/:wallet",status_code="200"} 2`,
    )
    expect(text).toContain(
      `${name}_bucket{le="1",method="POST",route="/api/v1/runs",status_code="202"} 1`,
    )
    expect(text).toContain(
      `${name}_bucket{le="+Inf",method="POST",route="/api/v1/runs",status_code="202"} 2`,
    )
    expect(text).toContain(`${name}_sum{method="POST",route="/api/v1/runs",status_code="202"} 3.07`)
    expect(text).toContain(`${name}_count{method="GET",route="unmatched",status_code="404"} 1`)
  })

  it('answers the same JSON as prom-client, and merges into another registry', async () => {
    const { ours, theirs } = both(observations)
    // prom-client's lines carry an empty `exemplar` (exemplars are off); ours have none.
    const withoutExemplars = (await theirs.getMetricsAsJSON()).map((metric) => ({
      ...metric,
      values: metric.values.map((value) => {
        const { exemplar: _none, ...rest } = value as typeof value & { exemplar?: unknown }
        return rest
      }),
    }))
    expect(await ours.getMetricsAsJSON()).toEqual(withoutExemplars)
    const merged = Registry.merge([ours, new Registry()])
    expect(await merged.metrics()).toBe(await theirs.metrics())
  })

  it('starts again from nothing on reset, and refuses a second metric of its name', async () => {
    const { ours, durations } = both(observations)
    ours.resetMetrics()
    expect(await ours.metrics()).toBe(`# HELP ${name} ${help}\n# TYPE ${name} histogram\n`)
    durations.observe('GET', '/health', 200, 0.001)
    expect(await ours.metrics()).toContain(
      `${name}_count{method="GET",route="/health",status_code="200"} 1`,
    )
    expect(() => new RequestDurations({ name, help, buckets, registers: [ours] })).toThrow(
      /already been registered/,
    )
  })
})
