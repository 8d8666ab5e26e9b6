export { createOfflineModel } from './create-offline-model'
export { type Directives, parseDirectives, type ToolDirective } from './parse-directives'
export { memoryMessageOptions } from './read-prompt'
