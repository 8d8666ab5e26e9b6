export { ToolBatchesExceededError, ToolBatchLimit } from './tool-batch-limit'
