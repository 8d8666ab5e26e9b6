import { ownEntry } from '../own-entry'
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

/** The file tools of a directory workspace. */
export const FILE_TOOL_NAMES = ['read_file', 'write_file', 'list_files'] as const

/**
 * Every tool a workspace of a built-in kind grants (files, browser, display): a card lists
 * them for where its agent works in one; elsewhere a runtime may run it without them.
 */
export const WORKSPACE_TOOL_NAMES: readonly string[] = [
  ...new Set<string>([...FILE_TOOL_NAMES, ...BROWSER_TOOL_NAMES, ...DISPLAY_TOOL_NAMES]),
]

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
  return ownEntry(KIND_TOOLS, kind) ?? ownEntry(KIND_TOOLS, ownEntry(WORKSPACE_ALIASES, kind) ?? '')
}
