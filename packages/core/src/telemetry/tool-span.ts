import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { capturesMessageContent } from './capture-content'
import { recordSpanFailure } from './record-span-failure'
import { emitTelemetry, hasTelemetryListeners } from './telemetry-listeners'
import { recordingTracer } from './tracer'

// MCP tools reach an agent as `mcp__<server>__<tool>` (see `@baton/core/mcp`).
const MCP_TOOL = /^mcp__(.+?)__(.+)$/

export type ToolSpanOptions = {
  toolName: string
  toolCallId: string
  input: unknown
}

/**
 * Runs one tool call inside an `execute_tool {tool}` span (MCP tools as `tools/call {tool}`
 * with the MCP conventions' `mcp.method.name`, per the MCP semantic conventions), and reports
 * its outcome to metrics listeners. A result that says the tool failed (`isError`, MCP's way)
 * counts as a failure too. Arguments and result are recorded only with content capture on.
 *
 * @example
 * const output = await withToolSpan({ toolName: 'search', toolCallId: 'call-1', input }, () => tool.execute(input))
 */
export async function withToolSpan<T>(
  options: ToolSpanOptions,
  work: () => Promise<T>,
): Promise<T> {
  const tracer = recordingTracer()
  const listening = hasTelemetryListeners()
  // No SDK and no listener: the tool runs as it is.
  if (!tracer && !listening) return work()
  const started = listening ? performance.now() : 0
  const report = (outcome: 'ok' | 'error') => {
    if (listening) {
      emitTelemetry('toolCall', {
        tool: options.toolName,
        outcome,
        durationMs: performance.now() - started,
      })
    }
  }
  if (!tracer) {
    try {
      const output = await work()
      report(reportsFailure(output) ? 'error' : 'ok')
      return output
    } catch (error) {
      report('error')
      throw error
    }
  }
  const mcp = MCP_TOOL.exec(options.toolName)
  const name = mcp ? `tools/call ${mcp[2]}` : `execute_tool ${options.toolName}`
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL }, async (span) => {
    const recording = span.isRecording()
    const content = recording && capturesMessageContent()
    if (recording) {
      span.setAttributes({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': options.toolName,
        'gen_ai.tool.call.id': options.toolCallId,
        'gen_ai.tool.type': 'function',
      })
      if (mcp) {
        span.setAttributes({
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': mcp[2]!,
          'baton.mcp.server': mcp[1]!,
        })
      }
      if (content) span.setAttribute('gen_ai.tool.call.arguments', safeJson(options.input))
    }
    try {
      const output = await work()
      const failed = reportsFailure(output)
      if (failed && recording) {
        span.setAttribute('error.type', 'tool_error')
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool reported an error' })
      }
      if (content) span.setAttribute('gen_ai.tool.call.result', safeJson(output))
      report(failed ? 'error' : 'ok')
      return output
    } catch (error) {
      recordSpanFailure(span, error)
      report('error')
      throw error
    } finally {
      span.end()
    }
  })
}

/** A result that says the tool failed (`isError`, MCP's way). */
function reportsFailure(output: unknown): boolean {
  return (output as { isError?: unknown } | null)?.isError === true
}

function safeJson(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? 'null'
  } catch {
    return String(value)
  }
}
