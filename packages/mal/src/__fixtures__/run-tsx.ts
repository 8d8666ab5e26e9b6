import { type ChildProcess, spawn } from 'node:child_process'
import { fromSourceArgs } from '@baton/testing/processes'

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
    const child = spawn(process.execPath, [...fromSourceArgs(file), file, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
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
