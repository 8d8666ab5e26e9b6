export { assertAllowed, createToolRegistry } from './create-tool-registry'
export { ToolAlreadyRegisteredError, ToolNotAllowedError, UnknownToolError } from './tool-errors'
export { isToolListed, isToolPattern, matchesToolPattern } from './tool-patterns'
export type { ToolRegistry } from './types'
