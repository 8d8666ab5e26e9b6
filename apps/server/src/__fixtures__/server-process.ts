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
 * const server = await startServerProcess({ BATON_DATA_DIR: dir, PORT: String(await freePort()) })
 */
export function startServerProcess(
  environment: Record<string, string>,
  options: { timeoutMs?: number; cwd?: string } = {},
): Promise<ServerProcess> {
  // Every answer is held against its documented schema, as in the in-process tests.
  return startEntry({
    entry: serverEntry,
    environment: { BATON_CHECK_RESPONSES: 'true', ...environment },
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
  options: { timeoutMs?: number } = {},
): Promise<{ code: number | string; output: string }> {
  return runEntryToExit({ entry: serverEntry, environment, ...options })
}
