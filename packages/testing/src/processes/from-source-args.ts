import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

/**
 * The Node.js arguments that run `entry` from source when it is TypeScript: the tsx loader of
 * the entry's own package, with the `@baton/source` condition (sibling packages are read from
 * source too); none for any other entry. The loader itself, not tsx's CLI: the CLI runs the
 * file in a grandchild, which a SIGKILL of the child leaves running, and to which it relays a
 * signal only after 30 ms without word from it (on a loaded machine, a CLI interrupted with
 * SIGINT was killed before it could print that it cancelled).
 *
 * @example
 * spawn(process.execPath, [...fromSourceArgs(entry), entry])
 */
export function fromSourceArgs(entry: string): string[] {
  if (!entry.endsWith('.ts')) return []
  return [
    '--import',
    pathToFileURL(createRequire(entry).resolve('tsx/esm')).href,
    '--conditions=@baton/source',
  ]
}
