import { parseWith } from '@baton/core'
import { z } from 'zod'
import { findExecutable } from '../adapters/find-executable'
import { createDirectoryWorkspace } from '../workspace/create-directory-workspace'
import { createHeldWorkspace } from '../workspace/create-held-workspace'
import type { Workspace, WorkspaceProvider } from '../workspace/types'
import { createDisplayTools } from './create-display-tools'
import { DisplaySession } from './display-session'

const OptionsSchema = z
  .object({
    apps: z
      .record(
        z.string().regex(/^[a-z0-9_-]+$/i, 'app names are letters, digits, _ and -'),
        z.object({ command: z.string().min(1), args: z.array(z.string()).optional() }).strict(),
      )
      .default({}),
    screen: z
      .string()
      .regex(/^\d+x\d+x(8|16|24)$/, 'must be WIDTHxHEIGHTxDEPTH, e.g. 1280x800x24')
      .default('1280x800x24'),
    xvfb: z.string().min(1).default('Xvfb'),
    xdotool: z.string().min(1).default('xdotool'),
    importCommand: z.string().min(1).default('import'),
    toolTimeoutMs: z.number().int().positive().default(15_000),
    startTimeoutMs: z.number().int().positive().default(10_000),
    killGraceMs: z.number().int().nonnegative().default(1_000),
    imagesToModel: z.boolean().default(true),
  })
  .strict()

export type DisplayWorkspaceProviderOptions = z.input<typeof OptionsSchema>

/** What runs on one display workspace now, for a UI or a check that nothing is left. */
export type RunningDisplay = {
  directory: string
  display: string
  xvfbPid?: number
  appPids: number[]
}

/** The `display` workspace provider (also registered as `desktop` and `apps`). */
export interface DisplayWorkspaceProvider extends WorkspaceProvider {
  create(options: { id: string; directory: string; parent?: Workspace }): Workspace
  /** The displays that are up, with the process ids of Xvfb and of the programs on each. */
  running(): RunningDisplay[]
  /** Ends every display it gave out, and what runs on them. */
  close(): Promise<void>
}

/**
 * Display workspaces: a fresh Xvfb per sub-agent (started on its first tool call), with the
 * tools `screenshot` (ImageMagick `import`), `click {x, y}`, `type {text}`, `key {combo}`
 * (xdotool) and `launch {app}` (only the `apps` the caller gives, by name). The display and
 * every program started on it end with the sub-agent (cancel, a failed turn, cleanup). Without
 * Xvfb, xdotool or import, `delegate` throws `WORKSPACE_UNAVAILABLE` naming what is missing.
 *
 * @example
 * const display = createDisplayWorkspaceProvider({ apps: { editor: { command: 'mousepad' } } })
 * createSupervisor({ agent, budget, workspace, workspaceProviders: { display, desktop: display, apps: display } })
 */
export function createDisplayWorkspaceProvider(
  options: DisplayWorkspaceProviderOptions = {},
): DisplayWorkspaceProvider {
  const settings = parseWith(OptionsSchema, options, 'display workspace options')
  const live = new Map<
    Workspace,
    { directory: string; session: () => DisplaySession | undefined }
  >()
  const needed: [string, string][] = [
    [settings.xvfb, 'xvfb'],
    [settings.xdotool, 'xdotool'],
    [settings.importCommand, 'imagemagick'],
  ]
  return {
    unavailableReason() {
      const missing = needed.filter(([command]) => !findExecutable(command))
      if (missing.length === 0) return undefined
      return `${missing.map(([command, debian]) => `${command} (Debian package ${debian})`).join(', ')} not found`
    },
    create({ directory }) {
      let starting: Promise<DisplaySession> | undefined
      let started: DisplaySession | undefined
      let disposed = false
      const session = () => {
        if (disposed) return Promise.reject(new Error('this display workspace was closed'))
        starting ??= DisplaySession.start({
          xvfb: settings.xvfb,
          screen: settings.screen,
          directory,
          startTimeoutMs: settings.startTimeoutMs,
          killGraceMs: settings.killGraceMs,
        }).then(async (opened) => {
          if (disposed) {
            await opened.close()
            throw new Error('this display workspace was closed')
          }
          started = opened
          return opened
        })
        starting.catch(() => {
          if (!disposed) starting = undefined
        })
        return starting
      }
      const workspace = createHeldWorkspace({
        kind: 'display',
        files: createDirectoryWorkspace({ root: directory }),
        tools: (assertUsable) =>
          createDisplayTools({
            session,
            assertUsable,
            apps: settings.apps,
            xdotool: settings.xdotool,
            importCommand: settings.importCommand,
            timeoutMs: settings.toolTimeoutMs,
            openTimeoutMs: settings.startTimeoutMs,
            imagesToModel: settings.imagesToModel,
          }),
        dispose: async () => {
          disposed = true
          const opened = await starting?.catch(() => undefined)
          await opened?.close()
          live.delete(workspace)
        },
      })
      live.set(workspace, { directory, session: () => started })
      return workspace
    },
    running() {
      return [...live.values()].flatMap(({ directory, session }) => {
        const opened = session()
        if (!opened) return []
        const { xvfb, apps } = opened.pids
        return [
          { directory, display: opened.display, ...(xvfb ? { xvfbPid: xvfb } : {}), appPids: apps },
        ]
      })
    },
    async close() {
      await Promise.all([...live.keys()].map((workspace) => workspace.dispose?.()))
    },
  }
}
