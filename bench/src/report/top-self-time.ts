import { readFile } from 'node:fs/promises'

type ProfileNode = {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
}

export type SelfTime = { name: string; where: string; percent: number }

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
 * The functions a `node --cpu-prof` profile spent the most self time in, as shares of all
 * samples (idle and GC included, so the shares add up to the whole run).
 *
 * @example
 * const top = await topSelfTime('results/profiles/chain-baton/CPU.1.cpuprofile', 8)
 * top[0] // { name: 'parse', where: 'zod/v4/core/schemas.js:1203', percent: 21.4 }
 */
export async function topSelfTime(file: string, count = 10): Promise<SelfTime[]> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as { nodes: ProfileNode[] }
  const totals = new Map<string, SelfTime & { hits: number }>()
  let all = 0
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0
    all += hits
    const name = node.callFrame.functionName || '(anonymous)'
    const where = shortWhere(node.callFrame.url, node.callFrame.lineNumber)
    const key = `${name} ${where}`
    const entry = totals.get(key) ?? { name, where, percent: 0, hits: 0 }
    entry.hits += hits
    totals.set(key, entry)
  }
  return [...totals.values()]
    .sort((left, right) => right.hits - left.hits)
    .slice(0, count)
    .map(({ name, where, hits }) => ({ name, where, percent: all > 0 ? (100 * hits) / all : 0 }))
}
