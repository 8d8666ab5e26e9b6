import type { WorkspaceProvider } from '@baton/subagents'
import { createBrowserWorkspaceProvider } from '@baton/subagents/browser'
import { createDisplayWorkspaceProvider } from '@baton/subagents/display'
import type { Settings } from '../settings/settings'

/** The workspace kinds this server's sub-agents may ask for, and how to end them. */
export type ServerWorkspaceProviders = {
  providers: Record<string, WorkspaceProvider>
  /** Ends the browser and every display (at shutdown). */
  close(): Promise<void>
}

/**
 * The browser and display providers the settings enable (none by default): `browser` with
 * BATON_BROWSER_ORIGINS, `display` (also `desktop`, `apps`) with BATON_DISPLAY_APPS. A bad
 * origin fails start-up with a `ValidationError` naming it.
 *
 * @example
 * const { providers, close } = createWorkspaceProviders(settings)
 */
export function createWorkspaceProviders(
  settings: Pick<Settings, 'browserWorkspaces' | 'displayWorkspaces'>,
): ServerWorkspaceProviders {
  const browser = settings.browserWorkspaces
    ? createBrowserWorkspaceProvider(settings.browserWorkspaces)
    : undefined
  const display = settings.displayWorkspaces
    ? createDisplayWorkspaceProvider({ apps: settings.displayWorkspaces.apps })
    : undefined
  return {
    providers: { ...(browser ? { browser } : {}), ...(display ? { display } : {}) },
    close: async () => {
      await Promise.all([browser?.close(), display?.close()])
    },
  }
}
