import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

// tsx's loader, not its CLI: the CLI runs the file in a grandchild, and relays a signal sent
// to it only after 30 ms without word from the grandchild, then kills the grandchild if it
// does not answer within 30 ms more. On a loaded machine a CLI interrupted with SIGINT was
// killed that way before it could print that it cancelled (a CI run).
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href

export type ChildResult = { code: number | null; stdout: string; stderr: string }

/**
 * Runs a TypeScript file in a child Node process (sources of sibling packages, no build): the
 * child is the file's own process, so a signal sent to it reaches the file's handlers.
 */
export function runTsx(
  file: string,
  args: string[],
  options: {
    stdin?: string
    cwd?: string
    env?: Record<string, string>
    /** Called with the child process once it has started (to signal it, say). */
    onStart?: (child: ChildProcess) => void
  } = {},
): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', tsxLoader, '--conditions=@baton/source', file, ...args],
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => {
      stdout += chunk
    })
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    options.onStart?.(child)
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    if (options.stdin === undefined) child.stdin.end()
    else child.stdin.end(options.stdin)
  })
}
