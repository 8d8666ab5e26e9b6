import { accessSync, constants } from 'node:fs'
import path from 'node:path'

/**
 * Where `command` would be found (a path, or a name looked up on `PATH`), or `undefined`.
 *
 * @example
 * findExecutable('node') // '/usr/bin/node'
 */
export function findExecutable(
  command: string,
  searchPath = process.env.PATH ?? '',
): string | undefined {
  const candidates = command.includes(path.sep)
    ? [path.resolve(command)]
    : searchPath
        .split(path.delimiter)
        .filter(Boolean)
        .map((directory) => path.join(directory, command))
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}
