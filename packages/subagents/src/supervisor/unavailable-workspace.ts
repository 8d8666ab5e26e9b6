import type { Workspace, WorkspaceLease } from '../workspace/types'

/**
 * The workspace of a sub-agent whose directory could not be made: every operation rejects
 * with the reason, so nothing can act as if it were there.
 *
 * @example
 * unavailableWorkspace('/srv/work/.subagents/sub-1', error).readFile('a.txt') // rejects with error
 */
export function unavailableWorkspace(root: string, reason: unknown): Workspace {
  const refuse = () => Promise.reject(reason)
  const workspace: WorkspaceLease = {
    kind: 'directory',
    root,
    holder: undefined,
    lend: () => {
      throw reason
    },
    release: () => {},
    readFile: refuse,
    writeFile: refuse,
    listFiles: refuse,
  }
  return workspace
}
