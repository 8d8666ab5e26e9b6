/** Other names of a kind: a `display` provider also gives out `desktop` and `apps` workspaces. */
export const WORKSPACE_ALIASES: Readonly<Record<string, string>> = {
  desktop: 'display',
  apps: 'display',
}

/** The tools of a `browser` workspace, for a card's `tools`. */
export const BROWSER_TOOL_NAMES = [
  'open_page',
  'read_page',
  'click',
  'type',
  'screenshot',
  'back',
  'tabs',
  'close_tab',
] as const

/** The tools of a `display` workspace (`desktop`, `apps`), for a card's `tools`. */
export const DISPLAY_TOOL_NAMES = ['screenshot', 'click', 'type', 'key', 'launch'] as const

const KIND_TOOLS: Readonly<Record<string, readonly string[]>> = {
  browser: BROWSER_TOOL_NAMES,
  display: DISPLAY_TOOL_NAMES,
}

/**
 * The tools a built-in workspace kind gives (its aliases resolved), or `undefined` for a kind
 * that is not built in. A caller that asks for a kind can check that the card lists some.
 *
 * @example
 * workspaceKindTools('desktop') // ['screenshot', 'click', 'type', 'key', 'launch']
 */
export function workspaceKindTools(kind: string): readonly string[] | undefined {
  return KIND_TOOLS[kind] ?? KIND_TOOLS[WORKSPACE_ALIASES[kind] ?? '']
}
