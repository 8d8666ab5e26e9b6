export { CliUsageError } from './cli-errors'
export { createProgressFormatter, type ProgressFormatter } from './format-progress'
export { parseInputFlags } from './parse-input-flags'
export { type CliIo, EXIT, runCli } from './run-cli'
