import { context, metrics, propagation, trace } from '@opentelemetry/api'
import { afterAll, beforeAll, vi } from 'vitest'

/**
 * Run before every test file (each project's `setupFiles`). The test files of a project share
 * worker processes (`isolate: false`): a process-wide setting one file leaves behind would be
 * the next file's starting point. After each file this puts back the environment variables
 * (stubbed or assigned), the stubbed globals and the real timers, and unregisters the
 * OpenTelemetry API's global tracer provider, meter provider, context manager and propagator,
 * so each file starts as it would alone.
 */
let environment: NodeJS.ProcessEnv = {}

beforeAll(() => {
  environment = { ...process.env }
})

afterAll(() => {
  vi.unstubAllEnvs()
  vi.unstubAllGlobals()
  vi.useRealTimers()
  for (const name of Object.keys(process.env)) {
    if (!(name in environment)) delete process.env[name]
  }
  for (const [name, value] of Object.entries(environment)) {
    if (process.env[name] !== value) process.env[name] = value
  }
  trace.disable()
  metrics.disable()
  context.disable()
  propagation.disable()
})
