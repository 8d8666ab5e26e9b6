import { UnsafeAdapterArgumentsError } from './adapter-errors'

/**
 * Refuses arguments that would hand a task that reads like a flag to the program as a flag:
 * a task starting with `-` must come after `--`. The task is text a model may have written
 * (`--dangerously-bypass-approvals-and-sandbox`), so it must never be read as an option.
 *
 * @example
 * checkAdapterArguments({ command: 'codex', args: ['exec', '--', '--yolo'], task: '--yolo' }) // fine
 * checkAdapterArguments({ command: 'codex', args: ['exec', '--yolo'], task: '--yolo' }) // throws
 */
export function checkAdapterArguments(options: {
  command: string
  args: readonly string[]
  task: string
}): void {
  const { command, args, task } = options
  if (!task.startsWith('-')) return
  const separator = args.indexOf('--')
  args.forEach((argument, index) => {
    if (argument === task && (separator === -1 || index < separator)) {
      throw new UnsafeAdapterArgumentsError({ command, index })
    }
  })
}
