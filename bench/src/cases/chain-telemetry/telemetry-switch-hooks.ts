// Module hooks (node:module `register`) for the telemetry bench: each module of Baton's
// instrumentation is loaded through a stand-in that exports what the module exports, with its
// functions as live bindings the bench can point at pass-throughs ("no telemetry at all": not
// one call into @opentelemetry/api) or back at the originals. Loaded only by the bench.

/** What each instrumented module's functions become with telemetry off. */
const BYPASSES: Record<string, Record<string, string>> = {
  'packages/core/src/telemetry/with-span.ts': { withSpan: '(options, work) => work(idleSpan)' },
  'packages/core/src/telemetry/agent-span.ts': {
    withAgentSpan: '(options, work) => work(idleSpan)',
  },
  'packages/core/src/telemetry/chat-span.ts': {
    startChatSpan: '() => ({ finish() {}, fail() {}, records: false, capturesContent: false })',
  },
  'packages/core/src/telemetry/tool-span.ts': { withToolSpan: '(options, work) => work()' },
  'packages/mal/src/telemetry/workflow-span.ts': {
    withWorkflowSpan: '(options, work) => work(idleSpan)',
  },
  'packages/mal/src/telemetry/trace-headers.ts': { withTraceHeaders: '(headers) => headers' },
  'packages/comm/src/telemetry/trace-metadata.ts': {
    traceMetadata: '() => undefined',
    withEnvelopeContext: '(metadata, work) => work()',
  },
}

const ORIGINAL = 'baton-original'

function standIn(url: string, bypasses: Record<string, string>): string {
  const original = `${url}?${ORIGINAL}`
  const names = Object.keys(bypasses)
  return [
    `import * as original from ${JSON.stringify(original)}`,
    `export * from ${JSON.stringify(original)}`,
    // A span that records nothing, made once: what the bypassed wrappers hand their work.
    `const idleSpan = { spanContext: () => ({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }), setAttribute() { return this }, setAttributes() { return this }, addEvent() { return this }, addLink() { return this }, addLinks() { return this }, setStatus() { return this }, updateName() { return this }, end() {}, isRecording: () => false, recordException() {} }`,
    ...names.map((name) => `export let ${name} = original.${name}`),
    `const switches = (globalThis[Symbol.for('baton.bench.telemetry-switches')] ??= [])`,
    `switches.push((off) => {`,
    ...names.map((name) => `  ${name} = off ? (${bypasses[name]}) : original.${name}`),
    `})`,
  ].join('\n')
}

type LoadResult = { format?: string; source?: string | ArrayBuffer; shortCircuit?: boolean }
type NextLoad = (url: string, context: unknown) => Promise<LoadResult>

export async function load(url: string, context: unknown, nextLoad: NextLoad): Promise<LoadResult> {
  if (!url.includes(`?${ORIGINAL}`)) {
    const entry = Object.entries(BYPASSES).find(([file]) => url.endsWith(`/${file}`))
    if (entry) return { format: 'module', source: standIn(url, entry[1]), shortCircuit: true }
  }
  return nextLoad(url, context)
}
