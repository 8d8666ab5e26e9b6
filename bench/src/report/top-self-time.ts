import { readFile } from 'node:fs/promises'

type ProfileNode = {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
}

export type SelfTime = { name: string; where: string; percent: number }

/** The package (or Baton package, or Node.js itself) a profiled function belongs to. */
function packageOf(url: string): string {
  if (!url) return '(native, idle, GC)'
  const path = url.replace(/^file:\/\//, '')
  const modules = path.lastIndexOf('/node_modules/')
  if (modules >= 0) {
    const [scope = '', name = ''] = path.slice(modules + '/node_modules/'.length).split('/')
    return scope.startsWith('@') ? `${scope}/${name}` : scope
  }
  const baton = /\/(packages|apps)\/([^/]+)\//.exec(path)
  if (baton) return `@baton/${baton[2]}`
  if (path.startsWith('node:') || !path.startsWith('/')) return 'node'
  return path.includes('/bench/') ? '@baton/bench' : 'other'
}

/** `…/node_modules/.pnpm/zod@4.6.7/node_modules/zod/v4/core/schemas.js` → `zod/v4/core/schemas.js`. */
function shortWhere(url: string, line: number): string {
  if (!url) return '(native)'
  const path = url.replace(/^file:\/\//, '')
  const modules = path.lastIndexOf('/node_modules/')
  const packages = path.indexOf('/packages/')
  const short =
    modules >= 0
      ? path.slice(modules + '/node_modules/'.length)
      : packages >= 0
        ? path.slice(packages + 1)
        : (path.split('/').slice(-3).join('/') ?? path)
  return `${short}:${line + 1}`
}

/**
 * Where a CPU profile spent its self time, as shares of all samples (idle and GC included,
 * so the shares add up to the whole run): the six packages with most, then the `count`
 * functions with most.
 *
 * @example
 * const top = await topSelfTime('results/profiles/chain-baton/CPU.1.cpuprofile', 8)
 * top[0] // { name: '[package] zod', where: '', percent: 31.2 }
 */
export async function topSelfTime(file: string, count = 10): Promise<SelfTime[]> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as { nodes: ProfileNode[] }
  const totals = new Map<string, SelfTime & { hits: number }>()
  const packages = new Map<string, number>()
  let all = 0
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0
    all += hits
    const owner = packageOf(node.callFrame.url)
    packages.set(owner, (packages.get(owner) ?? 0) + hits)
    const name = node.callFrame.functionName || '(anonymous)'
    const where = shortWhere(node.callFrame.url, node.callFrame.lineNumber)
    const key = `${name} ${where}`
    const entry = totals.get(key) ?? { name, where, percent: 0, hits: 0 }
    entry.hits += hits
    totals.set(key, entry)
  }
  const share = (hits: number) => (all > 0 ? (100 * hits) / all : 0)
  // The packages first (where the time goes, by owner), then the functions.
  const byPackage = [...packages]
    .sort((left, right) => right[1] - left[1])
    .slice(0, 6)
    .map(([owner, hits]) => ({ name: `[package] ${owner}`, where: '', percent: share(hits) }))
  const byFunction = [...totals.values()]
    .sort((left, right) => right.hits - left.hits)
    .slice(0, count)
    .map(({ name, where, hits }) => ({ name, where, percent: share(hits) }))
  return [...byPackage, ...byFunction]
}
