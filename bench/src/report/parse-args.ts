import { parseArgs } from 'node:util'
import type { Size } from '../cases'

export type BenchArgs = { size: Size; only: string[] | undefined; profile: boolean }

/**
 * Reads `--size tiny|full` (default full), `--only name[,name...]` and `--profile` (a CPU
 * profile of every measuring process, and its top self-time functions).
 *
 * @example
 * parseBenchArgs(['--size', 'tiny', '--only', 'bus']) // { size: 'tiny', only: ['bus'], profile: false }
 */
export function parseBenchArgs(argv: string[]): BenchArgs {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== '--'),
    options: {
      size: { type: 'string', default: 'full' },
      only: { type: 'string', multiple: true },
      profile: { type: 'boolean', default: false },
    },
    strict: true,
  })
  if (values.size !== 'tiny' && values.size !== 'full') {
    throw new Error(`--size must be tiny or full, not ${values.size}`)
  }
  const only = values.only?.flatMap((entry) => entry.split(',')).filter(Boolean)
  return {
    size: values.size,
    only: only && only.length > 0 ? only : undefined,
    profile: values.profile,
  }
}
