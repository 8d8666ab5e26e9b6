export { BROWSER_TOOL_NAMES } from '../workspace/workspace-kind-tools'
export { BrowserActionError, BrowserNavigationRefusedError } from './browser-errors'
export { createBrowserTools } from './create-browser-tools'
export {
  type BrowserWorkspaceProvider,
  type BrowserWorkspaceProviderOptions,
  createBrowserWorkspaceProvider,
} from './create-browser-workspace-provider'
export { createOriginPolicy, isLoopbackHost, type OriginPolicy } from './origin-policy'
export { CHROMIUM_FLAGS } from './shared-browser'
