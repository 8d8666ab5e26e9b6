import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const PACKAGES = ['@baton/core', '@baton/comm', '@baton/mal', '@baton/subagents'] as const

function newestSource(directory: string): number {
  let newest = 0
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const file = path.join(directory, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(file))
    else if (!entry.name.includes('.test.')) newest = Math.max(newest, statSync(file).mtimeMs)
  }
  return newest
}

/**
 * Why the bench cannot measure Baton's packages as users install them (their `dist/`), or
 * `undefined` when every package is built and no source is newer than its build: a missing or
 * stale build would print figures of code that is not the checkout's.
 *
 * @example
 * const problem = unbuiltPackages()
 * if (problem) throw new Error(problem)
 */
export function unbuiltPackages(): string | undefined {
  const problems: string[] = []
  for (const name of PACKAGES) {
    // The package's root from its package.json, whatever conditions this process resolves
    // with; the build is its `module` entry (what `import` resolves to without the source one).
    const root = path.dirname(fileURLToPath(import.meta.resolve(`${name}/package.json`)))
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      module: string
    }
    const built = statSync(path.join(root, manifest.module), { throwIfNoEntry: false })
    if (!built) problems.push(`${name} is not built`)
    else if (newestSource(path.join(root, 'src')) > built.mtimeMs) {
      problems.push(`${name}'s sources are newer than its build`)
    }
  }
  if (problems.length === 0) return undefined
  return `${problems.join('; ')}: run \`pnpm build\` first (the bench measures the built packages, as users install them)`
}
