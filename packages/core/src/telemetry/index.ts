export { type AgentSpanOptions, withAgentSpan } from './agent-span'
export { capturesMessageContent } from './capture-content'
export { type ChatOutcome, type ChatSpan, startChatSpan } from './chat-span'
export { modelAttributes } from './provider-name'
export { errorType, recordSpanFailure } from './record-span-failure'
export {
  type ModelCallRecord,
  onTelemetry,
  type TelemetryListener,
  type ToolCallRecord,
} from './telemetry-listeners'
export { type ToolSpanOptions, withToolSpan } from './tool-span'
export { batonTracer, recordingTracer } from './tracer'
export { type WithSpanOptions, withSpan } from './with-span'
