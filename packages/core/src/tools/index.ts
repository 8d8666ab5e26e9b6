export { assertAllowed, createToolRegistry } from './create-tool-registry'
export { ToolAlreadyRegisteredError, ToolNotAllowedError, UnknownToolError } from './tool-errors'
export type { ToolRegistry } from './types'
