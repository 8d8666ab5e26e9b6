import { BatonError } from '@baton/core'

/** The command line was wrong: an unknown command or flag, a missing plan, a bad `--input`. */
export class CliUsageError extends BatonError {
  override name = 'CliUsageError'
  constructor(reason: string) {
    super('CLI_USAGE', reason)
  }
}
