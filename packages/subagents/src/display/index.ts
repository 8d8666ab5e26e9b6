export { DISPLAY_TOOL_NAMES } from '../workspace/workspace-kind-tools'
export { createDisplayTools, type DisplayApp } from './create-display-tools'
export {
  createDisplayWorkspaceProvider,
  type DisplayWorkspaceProvider,
  type DisplayWorkspaceProviderOptions,
  type RunningDisplay,
} from './create-display-workspace-provider'
export { DisplayActionError, DisplayAppNotAllowedError } from './display-errors'
