import type { StoredRun } from '../db/runs-repository'

export type DelegationNode = {
  path: string
  op: string
  wallet: string | null
  status: 'running' | 'done' | 'failed'
  usage: { calls: number; tokens: number; costUsd: number } | null
  /** The screenshots its task took (fetch each from `/api/v1/runs/:id/files/<name>`). */
  files: DelegationFile[]
  children: DelegationNode[]
}

/** A file a step left behind, as its `step-file` event named it. */
export type DelegationFile = { name: string; file: string; mediaType: string; bytes: number }

/**
 * The tree of steps a run made (fanouts, loops and ifs holding their inner steps), each with
 * the wallet that did the work and what it spent, built from the stored events.
 *
 * @example
 * delegationTree(run, events).children[0] // { path: 'steps[0]', op: 'delegate', wallet: '0x…', ... }
 */
export function delegationTree(run: StoredRun, events: Record<string, unknown>[]) {
  const root: DelegationNode = {
    path: 'steps',
    op: 'run',
    wallet: null,
    status: 'running',
    usage: run.usage,
    files: [],
    children: [],
  }
  const byPath = new Map<string, DelegationNode>()
  const parentOf = (path: string): DelegationNode => {
    // The nearest enclosing step whose path prefixes this one.
    let cut = path.lastIndexOf('.')
    while (cut > 0) {
      const candidate = path.slice(0, cut).replace(/\.(steps|then|else|branches)$/, '')
      const parent = byPath.get(candidate)
      if (parent) return parent
      cut = path.lastIndexOf('.', cut - 1)
    }
    return root
  }
  for (const event of events) {
    const path = typeof event.path === 'string' ? event.path : undefined
    if (!path) continue
    if (event.type === 'step-start' && !byPath.has(path)) {
      const node: DelegationNode = {
        path,
        op: String(event.op),
        wallet: typeof event.wallet === 'string' ? event.wallet : null,
        status: 'running',
        usage: null,
        files: [],
        children: [],
      }
      byPath.set(path, node)
      parentOf(path).children.push(node)
    } else if (event.type === 'step-file') {
      const node = byPath.get(path)
      const name = String(event.name)
      // A step run again (on resume) saved its file again under the same name: listed once.
      if (node && !node.files.some((file) => file.name === name)) {
        node.files.push({
          name,
          file: String(event.file),
          mediaType: String(event.mediaType),
          bytes: Number(event.bytes),
        })
      }
    } else if (event.type === 'step-finish' || event.type === 'step-error') {
      let node = byPath.get(path)
      if (!node) {
        node = {
          path,
          op: String(event.op),
          wallet: null,
          status: 'running',
          usage: null,
          files: [],
          children: [],
        }
        byPath.set(path, node)
        parentOf(path).children.push(node)
      }
      node.status = event.type === 'step-finish' ? 'done' : 'failed'
      if (typeof event.wallet === 'string') node.wallet = event.wallet
      node.usage = (event.usage as DelegationNode['usage']) ?? null
    }
  }
  root.status = ['done', 'stopped'].includes(run.status)
    ? 'done'
    : run.status === 'failed'
      ? 'failed'
      : 'running'
  return root
}
