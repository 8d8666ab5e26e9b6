import type { ToolSet } from 'ai'
import type { LendOptions, Workspace, WorkspaceLease } from './types'
import { WorkspaceBusyError } from './workspace-errors'

export type CreateHeldWorkspaceOptions = {
  /** The workspace kind (`browser`, `display`, ...). */
  kind: string
  /** Where its files live: a directory workspace (`createDirectoryWorkspace`). */
  files: Workspace
  /**
   * The kind's own tools. Each must call `assertUsable` first: it throws `WorkspaceBusyError`
   * while this workspace is lent to a `share` sub-agent, or once a lease was handed back.
   */
  tools: (assertUsable: (action: string) => void) => ToolSet
  /** Ends what the workspace holds (a browser context, a display); called once, by its owner. */
  dispose?: () => Promise<void>
}

/**
 * A workspace of a kind that holds something besides files (a browser's tabs, a display):
 * its files are a directory workspace's, and `lend` lends both, so a `share` sub-agent takes
 * over the tabs as well as the files, and the owner's tools are refused with
 * `WorkspaceBusyError` until the lease is released. A lease never disposes of what it borrowed.
 *
 * @example
 * const workspace = createHeldWorkspace({ kind: 'browser', files, tools: (assertUsable) => browserTools(assertUsable) })
 * const lease = workspace.lend('sub-1') // workspace.tools().open_page now throws WORKSPACE_BUSY
 */
export function createHeldWorkspace(options: CreateHeldWorkspaceOptions): Workspace {
  return new HeldWorkspace(options.files, options, false)
}

class HeldWorkspace implements WorkspaceLease {
  readonly #files: Workspace
  readonly #options: CreateHeldWorkspaceOptions
  readonly #isLease: boolean
  #released = false
  #disposing: Promise<void> | undefined

  constructor(files: Workspace, options: CreateHeldWorkspaceOptions, isLease: boolean) {
    this.#files = files
    this.#options = options
    this.#isLease = isLease
  }

  get kind(): string {
    return this.#options.kind
  }
  get root(): string {
    return this.#files.root
  }
  get holder(): string | undefined {
    return this.#files.holder
  }
  // Its kind's tools write files of their own (screenshots, downloads) that no `onWrite`
  // hears of: a sub-agent's report must read the disk to list them.
  get reportsWrites(): boolean {
    return false
  }

  lend(holder: string, options?: LendOptions): WorkspaceLease {
    this.#assertUsable('lend the workspace')
    return new HeldWorkspace(this.#files.lend(holder, options), this.#options, true)
  }

  release(): void {
    if (!this.#isLease) return
    this.#released = true
    ;(this.#files as WorkspaceLease).release()
  }

  tools(): ToolSet {
    return this.#options.tools((action) => this.#assertUsable(action))
  }

  dispose(): Promise<void> {
    // A lease's holder is done with what it borrowed; the owner still has it.
    if (this.#isLease) return Promise.resolve()
    this.#disposing ??= this.#options.dispose?.() ?? Promise.resolve()
    return this.#disposing
  }

  readFile(file: string): Promise<string> {
    return this.#files.readFile(file)
  }
  writeFile(file: string, content: string): Promise<void> {
    return this.#files.writeFile(file, content)
  }
  listFiles(directory?: string): Promise<string[]> {
    return this.#files.listFiles(directory)
  }

  #assertUsable(action: string): void {
    if (this.#released) throw new WorkspaceBusyError({ root: this.root, action })
    const holder = this.#files.holder
    if (holder !== undefined) throw new WorkspaceBusyError({ root: this.root, holder, action })
  }
}
