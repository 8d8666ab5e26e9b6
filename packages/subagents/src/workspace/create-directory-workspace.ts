import { mkdirSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import type { ToolSet } from 'ai'
import { openInside } from './open-inside'
import type { LendOptions, Workspace, WorkspaceLease } from './types'
import { WorkspaceBusyError } from './workspace-errors'

export type CreateDirectoryWorkspaceOptions = {
  root: string
  /** `directory` unless a provider builds another kind on top of it. */
  kind?: string
  /** Extra tools of this kind (a provider's browser tools, say). */
  tools?: () => ToolSet
  dispose?: () => Promise<void>
  /**
   * `true` (default): the directory is made now, synchronously. `false`: the caller makes it
   * (a supervisor does, off the main thread, before the sub-agent's turn starts).
   */
  createRoot?: boolean
  /** With `createRoot: false`: makes the directory (once); every operation waits for it. */
  ready?: () => Promise<void>
  /** Called after each file it writes (so a report can tell it never wrote one). */
  onWrite?: (file: string) => void
}

/**
 * A workspace backed by a directory (created if missing). Its file operations cannot leave
 * the directory, and are refused while it is lent to a sub-agent.
 *
 * @example
 * const workspace = createDirectoryWorkspace({ root: './work' })
 * await workspace.writeFile('notes.md', '# Notes')
 * const lease = workspace.lend('sub-1') // workspace.writeFile now throws WORKSPACE_BUSY
 * lease.release()
 */
export function createDirectoryWorkspace(options: CreateDirectoryWorkspaceOptions): Workspace {
  const root = path.resolve(options.root)
  if (options.createRoot !== false) mkdirSync(root, { recursive: true })
  return new DirectoryWorkspace(root, options, undefined)
}

/**
 * `createDirectoryWorkspace` for a root that is absolute and normalised already (a sub-agent's
 * directory under its tree's resolved root), made later by `ready`: no resolving per sub-agent.
 */
export function directoryWorkspaceAt(root: string, options: WorkspaceOptions): Workspace {
  return new DirectoryWorkspace(root, options, undefined)
}

/** What a directory workspace keeps of its options: its root is resolved apart. */
type WorkspaceOptions = Omit<CreateDirectoryWorkspaceOptions, 'root' | 'createRoot'>

class DirectoryWorkspace implements WorkspaceLease {
  readonly root: string
  readonly kind: string
  readonly #options: WorkspaceOptions
  readonly #lender: DirectoryWorkspace | undefined
  readonly reportsWrites: boolean
  #holder: string | undefined
  #released = false

  constructor(
    root: string,
    options: WorkspaceOptions,
    lender: DirectoryWorkspace | undefined,
    reportsWrites = false,
  ) {
    this.root = root
    this.kind = options.kind ?? 'directory'
    this.#options = options
    this.#lender = lender
    this.reportsWrites = reportsWrites
  }

  get holder(): string | undefined {
    return this.#holder
  }

  lend(holder: string, options: LendOptions = {}): WorkspaceLease {
    this.#assertUsable('lend the workspace')
    this.#holder = holder
    const { onWrite } = options
    if (!onWrite) return new DirectoryWorkspace(this.root, this.#options, this)
    // The holder hears of its writes, and so does the lender (and its lender): a write
    // through a lease is a write to every workspace it was lent from.
    const lenderWrote = this.#options.onWrite
    const chained = {
      ...this.#options,
      onWrite: (file: string) => {
        onWrite(file)
        lenderWrote?.(file)
      },
    }
    return new DirectoryWorkspace(this.root, chained, this, true)
  }

  release(): void {
    if (!this.#lender || this.#released) return
    this.#released = true
    this.#lender.#holder = undefined
  }

  tools(): ToolSet {
    return this.#options.tools?.() ?? {}
  }

  async dispose(): Promise<void> {
    await this.#options.dispose?.()
  }

  async readFile(file: string): Promise<string> {
    this.#assertUsable(`read "${file}"`)
    await this.#options.ready?.()
    const { handle } = await openInside(this.root, file, 'read')
    try {
      return await handle.readFile('utf8')
    } finally {
      await handle.close()
    }
  }

  async writeFile(file: string, content: string): Promise<void> {
    this.#assertUsable(`write "${file}"`)
    await this.#options.ready?.()
    const { handle } = await openInside(this.root, file, 'write')
    try {
      // Truncated only now, through the checked descriptor: opening with O_TRUNC would empty
      // a file before it is known to be inside.
      await handle.truncate(0)
      await handle.writeFile(content, 'utf8')
    } finally {
      await handle.close()
    }
    this.#options.onWrite?.(file)
  }

  async listFiles(directory = '.'): Promise<string[]> {
    this.#assertUsable(`list "${directory}"`)
    await this.#options.ready?.()
    const { handle, location } = await openInside(this.root, directory, 'directory')
    try {
      const start = path.relative(this.root, path.resolve(this.root, directory))
      const entries = await readdir(location, { recursive: true, withFileTypes: true })
      return entries
        .filter((entry) => entry.isFile())
        .map((entry) =>
          path.join(start, path.relative(location, path.join(entry.parentPath, entry.name))),
        )
        .sort()
    } finally {
      await handle.close()
    }
  }

  #assertUsable(action: string): void {
    if (this.#released) throw new WorkspaceBusyError({ root: this.root, action })
    if (this.#holder !== undefined) {
      throw new WorkspaceBusyError({ root: this.root, holder: this.#holder, action })
    }
  }
}
