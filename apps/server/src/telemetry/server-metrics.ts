import { type ModelCallRecord, onTelemetry, type ToolCallRecord } from '@baton/core'
import { metrics as otelMetrics } from '@opentelemetry/api'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { processRegistry } from './process-registry'
import { RequestDurations } from './request-durations'

export type ServerMetricsOptions = {
  /** This process's name (`BATON_WORKER_NAME`): the `worker` label of the per-process gauges. */
  workerName: string
  /** Runs waiting in the queue (BullMQ's count among many processes). */
  queueDepth: () => number | Promise<number>
  /** Runs this process executes now. */
  activeRuns: () => number
}

/** A run event as the metrics read it (MAL's and swarm runs' events alike). */
export type ObservedRunEvent = {
  type: string
  op?: string
  durationMs?: number
  status?: string
  result?: { status?: string }
}

const SECONDS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300]

/**
 * The server's metrics: Prometheus text for `GET /metrics` (prom-client, a registry per app)
 * and the same measurements through the OpenTelemetry metrics API (exported over OTLP when
 * the SDK is registered, a no-op otherwise). Model and tool calls come from core's
 * `onTelemetry`, runs and steps from the run service's events.
 *
 * @example
 * const metrics = createServerMetrics({ workerName, queueDepth: () => queue.size(), activeRuns: () => runs.active().length })
 * reply.type(metrics.contentType).send(await metrics.text())
 */
export function createServerMetrics(options: ServerMetricsOptions) {
  const registry = new Registry()
  const registers = [registry]
  const worker = options.workerName
  const meter = otelMetrics.getMeter('@baton/server')

  const runsStarted = new Counter({
    name: 'baton_runs_started_total',
    help: 'Runs started (or resumed) in this process, by kind.',
    labelNames: ['kind'],
    registers,
  })
  const runsFinished = new Counter({
    name: 'baton_runs_finished_total',
    help: 'Runs finished in this process, by kind and status.',
    labelNames: ['kind', 'status'],
    registers,
  })
  const stepDuration = new Histogram({
    name: 'baton_step_duration_seconds',
    help: 'Duration of finished MAL steps, by op.',
    labelNames: ['op'],
    buckets: SECONDS,
    registers,
  })
  const modelCalls = new Counter({
    name: 'baton_model_calls_total',
    help: 'Model calls, by provider, model and outcome.',
    labelNames: ['provider', 'model', 'outcome'],
    registers,
  })
  const modelTokens = new Counter({
    name: 'baton_model_tokens_total',
    help: 'Tokens charged for model calls, by provider, model and type (input, output).',
    labelNames: ['provider', 'model', 'type'],
    registers,
  })
  const modelCost = new Counter({
    name: 'baton_model_cost_usd_total',
    help: 'Cost charged for model calls in USD, by provider and model.',
    labelNames: ['provider', 'model'],
    registers,
  })
  const toolCalls = new Counter({
    name: 'baton_tool_calls_total',
    help: 'Tool calls of agents, by tool and outcome.',
    labelNames: ['tool', 'outcome'],
    registers,
  })
  const escalations = new Counter({
    name: 'baton_loop_guard_escalations_total',
    help: 'Loop-guard decisions: chains held for a person, and allowed or stopped by one.',
    labelNames: ['decision'],
    registers,
  })
  const sseClients = new Gauge({
    name: 'baton_sse_clients',
    help: 'Server-sent event streams open now.',
    registers,
  })
  // Every response observes this one: a histogram made for that (see RequestDurations).
  const httpDuration = new RequestDurations({
    name: 'baton_http_request_duration_seconds',
    help: 'HTTP request duration, by method, route and status code.',
    buckets: SECONDS,
    registers,
  })
  new Gauge({
    name: 'baton_queue_depth',
    help: 'Runs waiting in the run queue.',
    labelNames: ['worker'],
    registers,
    async collect() {
      this.set({ worker }, await options.queueDepth())
    },
  })
  new Gauge({
    name: 'baton_active_runs',
    help: 'Runs this process executes now.',
    labelNames: ['worker'],
    registers,
    collect() {
      this.set({ worker }, options.activeRuns())
    },
  })

  // The same measurements for OTLP (no-ops without a registered MeterProvider).
  const otel = {
    runsStarted: meter.createCounter('baton.runs.started'),
    runsFinished: meter.createCounter('baton.runs.finished'),
    stepDuration: meter.createHistogram('baton.step.duration', { unit: 's' }),
    tokenUsage: meter.createHistogram('gen_ai.client.token.usage', { unit: '{token}' }),
    operationDuration: meter.createHistogram('gen_ai.client.operation.duration', { unit: 's' }),
    modelCost: meter.createCounter('baton.model.cost', { unit: 'USD' }),
    toolCalls: meter.createCounter('baton.tool.calls'),
    escalations: meter.createCounter('baton.loop_guard.escalations'),
    sseClients: meter.createUpDownCounter('baton.sse.clients'),
    httpDuration: meter.createHistogram('http.server.request.duration', { unit: 's' }),
  }
  meter
    .createObservableGauge('baton.active_runs')
    .addCallback((result) => result.observe(options.activeRuns(), { worker }))

  const modelCall = (call: ModelCallRecord) => {
    const outcome = call.errorType ? 'error' : 'ok'
    const labels = { provider: call.provider, model: call.model }
    modelCalls.inc({ ...labels, outcome })
    if (call.inputTokens > 0) modelTokens.inc({ ...labels, type: 'input' }, call.inputTokens)
    if (call.outputTokens > 0) modelTokens.inc({ ...labels, type: 'output' }, call.outputTokens)
    if (call.costUsd > 0) modelCost.inc(labels, call.costUsd)
    const attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': call.provider,
      'gen_ai.request.model': call.model,
      ...(call.errorType ? { 'error.type': call.errorType } : {}),
    }
    otel.operationDuration.record(call.durationMs / 1000, attributes)
    otel.tokenUsage.record(call.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' })
    otel.tokenUsage.record(call.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' })
    otel.modelCost.add(call.costUsd, attributes)
  }
  const toolCall = (call: ToolCallRecord) => {
    toolCalls.inc({ tool: call.tool, outcome: call.outcome })
    otel.toolCalls.add(1, { 'gen_ai.tool.name': call.tool, outcome: call.outcome })
  }
  const stopListening = onTelemetry({ modelCall, toolCall })

  return {
    contentType: registry.contentType,
    /** The Prometheus text of this app's metrics and the process's (CPU, memory, event loop). */
    async text(): Promise<string> {
      return Registry.merge([registry, processRegistry()]).metrics()
    },
    /** Counts a run's start, finish and finished steps from its events. */
    runEvent(kind: 'plan' | 'swarm', event: ObservedRunEvent): void {
      if (event.type === 'run-start' || event.type === 'swarm-start') {
        runsStarted.inc({ kind })
        otel.runsStarted.add(1, { kind })
      } else if (event.type === 'run-finish' || event.type === 'swarm-finish') {
        const status = event.status ?? event.result?.status ?? 'unknown'
        runsFinished.inc({ kind, status })
        otel.runsFinished.add(1, { kind, status })
      } else if (event.type === 'step-finish' && event.durationMs !== undefined) {
        stepDuration.observe({ op: event.op ?? 'unknown' }, event.durationMs / 1000)
        otel.stepDuration.record(event.durationMs / 1000, { op: event.op ?? 'unknown' })
      }
    },
    escalation(decision: 'hold' | 'allow' | 'stop'): void {
      escalations.inc({ decision })
      otel.escalations.add(1, { decision })
    },
    sseOpened(): void {
      sseClients.inc()
      otel.sseClients.add(1)
    },
    sseClosed(): void {
      sseClients.dec()
      otel.sseClients.add(-1)
    },
    /** A response sent: its method, route pattern (`/api/v1/runs/:id`), status and duration. */
    httpRequest(method: string, route: string, statusCode: number, seconds: number): void {
      httpDuration.observe(method, route, statusCode, seconds)
      otel.httpDuration.record(seconds, {
        'http.request.method': method,
        'http.route': route,
        'http.response.status_code': statusCode,
      })
    },
    /** Stops counting this process's model and tool calls (the app is closing). */
    close(): void {
      stopListening()
    },
  }
}

export type ServerMetrics = ReturnType<typeof createServerMetrics>
