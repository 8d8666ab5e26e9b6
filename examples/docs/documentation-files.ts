import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Every Markdown file a reader is sent to: the README, docs/, each package's and app's README
 * (paths relative to the repository root).
 *
 * @example
 * documentationFiles() // ['README.md', 'docs/a2a.md', …, 'packages/surface/README.md']
 */
export function documentationFiles(): string[] {
  const inFolder = (folder: string) =>
    existsSync(path.join(root, folder))
      ? readdirSync(path.join(root, folder)).map((name) => `${folder}/${name}`)
      : []
  const docs = inFolder('docs').filter((file) => file.endsWith('.md'))
  const readmes = ['packages', 'apps']
    .flatMap(inFolder)
    .map((folder) => `${folder}/README.md`)
    .filter((file) => existsSync(path.join(root, file)))
  return ['README.md', ...docs.sort(), ...readmes.sort()]
}
