import { BatonError } from '@baton/core'

/** A file path that would leave a sub-agent's directory (`..`, absolute, or a symlink out). */
export class WorkspaceEscapeError extends BatonError {
  override name = 'WorkspaceEscapeError'
  constructor(options: { path: string; root: string; reason: string }) {
    super(
      'WORKSPACE_ESCAPE',
      `Path "${options.path}" is outside the workspace: ${options.reason}.`,
      { details: { path: options.path, root: options.root, reason: options.reason } },
    )
  }
}

/** The workspace is lent to a sub-agent (`workspace: 'share'`), or the lease was handed back. */
export class WorkspaceBusyError extends BatonError {
  override name = 'WorkspaceBusyError'
  constructor(options: { root: string; holder?: string; action: string }) {
    const message = options.holder
      ? `Cannot ${options.action}: the workspace is held by sub-agent "${options.holder}" until its turn ends.`
      : `Cannot ${options.action}: this lease on the workspace was handed back.`
    super('WORKSPACE_BUSY', message, {
      details: { root: options.root, holder: options.holder, action: options.action },
    })
  }
}

/** `delegate` named a workspace kind that no provider is registered for. */
export class UnknownWorkspaceKindError extends BatonError {
  override name = 'UnknownWorkspaceKindError'
  constructor(options: { kind: string; known: string[] }) {
    super(
      'UNKNOWN_WORKSPACE_KIND',
      `No workspace provider is registered for kind "${options.kind}" (known: ${options.known.join(', ')}).`,
      { details: { kind: options.kind, known: options.known } },
    )
  }
}

/** The provider of a workspace kind is registered but cannot give out a workspace now. */
export class WorkspaceUnavailableError extends BatonError {
  override name = 'WorkspaceUnavailableError'
  constructor(options: { kind: string; reason: string }) {
    super(
      'WORKSPACE_UNAVAILABLE',
      `Workspace kind "${options.kind}" is unavailable: ${options.reason}.`,
      { details: { kind: options.kind, reason: options.reason } },
    )
  }
}

/** A path the file system cannot take: a name longer than 255 bytes, or a path past 4095. */
export class InvalidWorkspacePathError extends BatonError {
  override name = 'InvalidWorkspacePathError'
  constructor(options: { path: string; root: string; reason: string }) {
    super(
      'WORKSPACE_PATH_INVALID',
      `Path "${shorten(options.path)}" cannot be used in the workspace: ${options.reason}.`,
      { details: { path: options.path, root: options.root, reason: options.reason } },
    )
  }
}

// A model may send a path of thousands of characters; the message stays readable.
function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 40)}…${text.slice(-30)}` : text
}

/** A workspace tool call (a browser's `open_page`, a display's `launch`) took longer than allowed. */
export class WorkspaceToolTimeoutError extends BatonError {
  override name = 'WorkspaceToolTimeoutError'
  constructor(options: { tool: string; timeoutMs: number }) {
    super(
      'WORKSPACE_TOOL_TIMEOUT',
      `Tool "${options.tool}" did not finish within ${options.timeoutMs} ms.`,
      { details: { tool: options.tool, timeoutMs: options.timeoutMs } },
    )
  }
}
