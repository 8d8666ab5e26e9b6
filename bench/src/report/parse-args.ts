import { parseArgs } from 'node:util'
import { type Size, SUBJECTS, type Subject } from '../cases'

export type BenchArgs = {
  size: Size
  only: string[] | undefined
  /** Only these subjects of each case (e.g. `baton` for a profile of Baton alone). */
  subjects: Subject[] | undefined
  profile: boolean
}

/**
 * Reads `--size tiny|full` (default full), `--only name[,name...]`, `--subjects baton,...` and
 * `--profile` (a CPU profile of every measuring process, and its top self-time functions).
 *
 * @example
 * parseBenchArgs(['--size', 'tiny', '--only', 'bus']) // { size: 'tiny', only: ['bus'], subjects: undefined, profile: false }
 */
export function parseBenchArgs(argv: string[]): BenchArgs {
  const { values } = parseArgs({
    args: argv.filter((arg) => arg !== '--'),
    options: {
      size: { type: 'string', default: 'full' },
      only: { type: 'string', multiple: true },
      subjects: { type: 'string', multiple: true },
      profile: { type: 'boolean', default: false },
    },
    strict: true,
  })
  if (values.size !== 'tiny' && values.size !== 'full') {
    throw new Error(`--size must be tiny or full, not ${values.size}`)
  }
  const only = values.only?.flatMap((entry) => entry.split(',')).filter(Boolean)
  const subjects = values.subjects?.flatMap((entry) => entry.split(',')).filter(Boolean)
  const unknown = subjects?.filter((subject) => !SUBJECTS.includes(subject as Subject)) ?? []
  if (unknown.length > 0) {
    throw new Error(`--subjects takes ${SUBJECTS.join(', ')}, not ${unknown.join(', ')}`)
  }
  return {
    size: values.size,
    only: only && only.length > 0 ? only : undefined,
    subjects: subjects && subjects.length > 0 ? (subjects as Subject[]) : undefined,
    profile: values.profile,
  }
}
