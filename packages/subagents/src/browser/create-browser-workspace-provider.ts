import { existsSync } from 'node:fs'
import { parseWith } from '@baton/core'
import { z } from 'zod'
import { createDirectoryWorkspace } from '../workspace/create-directory-workspace'
import { createHeldWorkspace } from '../workspace/create-held-workspace'
import type { Workspace, WorkspaceProvider } from '../workspace/types'
import { BrowserSession } from './browser-session'
import { createBrowserTools } from './create-browser-tools'
import { createOriginPolicy } from './origin-policy'
import { createSharedBrowser } from './shared-browser'

const OptionsSchema = z
  .object({
    allowedOrigins: z.array(z.string().min(1)),
    allowLoopback: z.boolean().default(false),
    executablePath: z.string().min(1).default('/usr/bin/chromium'),
    args: z.array(z.string()).default([]),
    toolTimeoutMs: z.number().int().positive().default(15_000),
    launchTimeoutMs: z.number().int().positive().default(30_000),
    maxTextChars: z.number().int().positive().default(6_000),
    maxSnapshotChars: z.number().int().positive().default(12_000),
    imagesToModel: z.boolean().default(true),
  })
  .strict()

export type BrowserWorkspaceProviderOptions = z.input<typeof OptionsSchema>

/** The `browser` workspace provider: one Chromium for the tree, a context per workspace. */
export interface BrowserWorkspaceProvider extends WorkspaceProvider {
  /**
   * A browser workspace for a caller that is not a sub-agent (the root of a tree, whose tabs a
   * `share` sub-agent may take over): the same as a sub-agent's, in `directory`.
   */
  create(options: { id: string; directory: string; parent?: Workspace }): Workspace
  /** The Chromium process, once launched (Linux); `undefined` before the first tool call. */
  readonly browserPid: number | undefined
  /** Closes every context and ends the browser process. */
  close(): Promise<void>
}

/**
 * Browser workspaces for sub-agents (`delegate(task, { workspace: 'browser' })`). Chromium comes
 * from the system (`executablePath`, default `/usr/bin/chromium`), launched once, on the first
 * tool call of any workspace; each workspace gets a `BrowserContext` of its own (cookies,
 * storage and permissions are not shared), whose every request goes through a proxy that
 * admits only `allowedOrigins`. Its tools (the card must list them): `open_page`, `read_page`,
 * `click`, `type`, `screenshot`, `back`, `tabs`, `close_tab`. Screenshots and downloads land
 * in the sub-agent's directory. A cancel or cleanup closes the context at once; `close()`
 * ends the browser.
 *
 * @example
 * const browser = createBrowserWorkspaceProvider({ allowedOrigins: ['https://docs.example.com'] })
 * const supervisor = createSupervisor({ agent, budget, workspace, workspaceProviders: { browser } })
 * supervisor.delegate('Find the rate limits [[tool:open_page {"url":"https://docs.example.com"}]]', { workspace: 'browser' })
 * // ... when the run is over:
 * await browser.close()
 */
export function createBrowserWorkspaceProvider(
  options: BrowserWorkspaceProviderOptions,
): BrowserWorkspaceProvider {
  const settings = parseWith(OptionsSchema, options, 'browser workspace options')
  const policy = createOriginPolicy(settings)
  const shared = createSharedBrowser({
    executablePath: settings.executablePath,
    args: settings.args,
    launchTimeoutMs: settings.launchTimeoutMs,
  })
  const open = new Set<Workspace>()
  return {
    unavailableReason: () =>
      existsSync(settings.executablePath)
        ? undefined
        : `Chromium is not installed at ${settings.executablePath} (set executablePath)`,
    create({ directory }) {
      let opening: Promise<BrowserSession> | undefined
      let disposed = false
      const session = () => {
        if (disposed) return Promise.reject(new Error('this browser workspace was closed'))
        opening ??= BrowserSession.open({
          browser: shared,
          policy,
          directory,
          timeoutMs: settings.toolTimeoutMs,
        }).then(async (opened) => {
          // Disposed while it was opening: nothing may be left behind.
          if (disposed) {
            await opened.close()
            throw new Error('this browser workspace was closed')
          }
          return opened
        })
        // The next call may try again, unless the workspace was closed.
        opening.catch(() => {
          if (!disposed) opening = undefined
        })
        return opening
      }
      const workspace = createHeldWorkspace({
        kind: 'browser',
        files: createDirectoryWorkspace({ root: directory }),
        tools: (assertUsable) =>
          createBrowserTools({
            session,
            policy,
            assertUsable,
            timeoutMs: settings.toolTimeoutMs,
            openTimeoutMs: settings.launchTimeoutMs,
            maxTextChars: settings.maxTextChars,
            maxSnapshotChars: settings.maxSnapshotChars,
            imagesToModel: settings.imagesToModel,
          }),
        dispose: async () => {
          disposed = true
          open.delete(workspace)
          const opened = await opening?.catch(() => undefined)
          await opened?.close()
        },
      })
      open.add(workspace)
      return workspace
    },
    get browserPid() {
      return shared.pid
    },
    async close() {
      await Promise.all([...open].map((workspace) => workspace.dispose?.()))
      await shared.close()
    },
  }
}
