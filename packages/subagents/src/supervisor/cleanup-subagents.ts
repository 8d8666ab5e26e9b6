import { readdir, rm, rmdir } from 'node:fs/promises'
import path from 'node:path'
import { cancelSubagent, disposeHeld } from './cancel-subagent'
import { subagentsRootOf } from './choose-workspace'
import type { Subagent } from './subagent'
import { forgetChild, forgetChildren, type SupervisorNodeState } from './supervisor-state'

/**
 * Cancels `targets` (sub-agents of `node`) and removes them and everything below them in one
 * pass: the subtree is gathered without recursion, then every directory is disposed of and
 * removed at once (each is flat under the run's root, so no removal waits for another).
 *
 * @example
 * await cleanupSubagents(node, [...node.children.values()])
 */
export async function cleanupSubagents(
  node: SupervisorNodeState,
  targets: Subagent[],
): Promise<void> {
  await Promise.all(targets.map((subagent) => cancelSubagent(node, subagent)))
  const subtree: Subagent[] = []
  for (const pending = [...targets]; pending.length > 0; ) {
    const subagent = pending.pop()!
    subtree.push(subagent)
    pending.push(...subagent.node.children.values())
  }
  await Promise.all(
    subtree.map(async (subagent) => {
      // Its directory may still be being made: removed after, so nothing is left behind.
      await subagent.directoryMaking?.catch(() => {})
      await disposeHeld(subagent)
    }),
  )
  // Most sub-agents of a fan-out or a deep tree never made their directory (it is made at the
  // first file operation): one listing of the directory they all go in says which exist, where
  // a removal of each (an `lstat` that finds nothing) cost ~20 ms for a thousand.
  const flat = subagentsRootOf(node.tree)
  const made = await readdir(flat).then(
    (names) => new Set(names),
    () => new Set<string>(),
  )
  await Promise.all(
    subtree.map((subagent) => {
      // A `share` sub-agent worked in its caller's directory, which is not its to remove.
      if (subagent.workspaceKind === 'share') return undefined
      const { root } = subagent.workspace
      if (path.dirname(root) === flat && !made.has(path.basename(root))) return undefined
      return rm(root, { recursive: true, force: true })
    }),
  )
  for (const subagent of subtree) forgetChildren(subagent.node)
  for (const subagent of targets) forgetChild(node, subagent)
  // Only removed when empty: other callers may keep sub-agents there too.
  await rmdir(flat).catch(() => {})
}
