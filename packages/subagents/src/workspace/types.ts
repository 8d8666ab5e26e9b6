import type { ToolSet } from 'ai'

/** File operations on a workspace; every path is relative to its root and cannot leave it. */
export interface WorkspaceFiles {
  /** The directory where the files live. */
  readonly root: string
  readFile(file: string): Promise<string>
  writeFile(file: string, content: string): Promise<void>
  /** Files (not directories) below `directory`, relative to the root, sorted. */
  listFiles(directory?: string): Promise<string[]>
}

/**
 * Where an agent works. `directory` is built in; other kinds (`browser`, `desktop`, ...)
 * come from a `WorkspaceProvider` and usually build on `createDirectoryWorkspace`.
 */
export interface Workspace extends WorkspaceFiles {
  readonly kind: string
  /** The sub-agent that holds it now (`workspace: 'share'`), if it is lent out. */
  readonly holder: string | undefined
  /**
   * Lends the workspace to `holder`: until the lease is released, only the lease may use
   * the files; this workspace's own operations are refused with `WorkspaceBusyError`.
   */
  lend(holder: string, options?: LendOptions): WorkspaceLease
  /** Tools this kind grants the agent working in it, besides the file tools. */
  tools?(): ToolSet
  /** Called by `cleanup`; frees what the provider holds (browsers, sessions, ...). */
  dispose?(): Promise<void>
}

/** How a workspace is lent. */
export type LendOptions = {
  /**
   * Called after each file written through the lease (as well as the lender's own `onWrite`),
   * so the holder knows what it wrote without reading the disk.
   */
  onWrite?: (file: string) => void
}

/** A workspace lent to a sub-agent; it is a workspace in its own right until released. */
export interface WorkspaceLease extends Workspace {
  release(): void
  /** True when the lease calls `LendOptions.onWrite` for every file written through it. */
  readonly reportsWrites?: boolean
}

/** The caller's workspace as plain data. */
export type WorkspaceSpec = { kind: 'directory'; root: string }

/** Gives out workspaces of one kind. Checked at `delegate`, so a missing kind fails early. */
export interface WorkspaceProvider {
  /** Returns why it cannot give out a workspace now, or `undefined` when it can. */
  unavailableReason?(): string | undefined
  /** A workspace for sub-agent `id` whose files live in `directory` (already created). */
  create(options: { id: string; directory: string; parent: Workspace }): Workspace
}
