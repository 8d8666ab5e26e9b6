import { fileURLToPath } from 'node:url'
import {
  runServerToExit as runEntryToExit,
  type ServerProcess,
  startServerProcess as startEntry,
} from '@baton/testing/server-process'

export type { ServerProcess }

/** The server's entry (`main.ts`, run from source), for `@baton/testing/server-process`. */
export const serverEntry = fileURLToPath(new URL('../main.ts', import.meta.url))

/**
 * Starts this server (`main.ts`) as a child process, as `pnpm start` does, and resolves once
 * it prints the URL it listens on.
 *
 * @example
 * const server = await startServerProcess({ BATON_DATA_DIR: dir })
 */
export function startServerProcess(
  environment: Record<string, string>,
  options: { timeoutMs?: number; cwd?: string } = {},
): Promise<ServerProcess> {
  // Every answer is held against its documented schema, as in the in-process tests. Port 0
  // (unless given): the OS picks one as it listens, and its URL is read from what it prints.
  // A port picked before the start (`freePort`) could be taken while the server starts.
  return startEntry({
    entry: serverEntry,
    environment: { BATON_CHECK_RESPONSES: 'true', PORT: '0', ...environment },
    ...options,
  })
}

/**
 * Starts this server expecting it to fail before it listens; resolves with its exit code and
 * what it printed.
 *
 * @example
 * const { code, output } = await runServerToExit({ BATON_DATA_DIR: '/full/disk' })
 */
export function runServerToExit(
  environment: Record<string, string>,
  options: { timeoutMs?: number; cwd?: string } = {},
): Promise<{ code: number | string; output: string }> {
  return runEntryToExit({ entry: serverEntry, environment, ...options })
}
