const failurePaths = new WeakMap<object, string>()

/**
 * Marks `error` as raised at the step at `path`, unless a step deeper down already marked it:
 * the innermost step is the one that failed.
 *
 * @example
 * noteFailurePath(error, 'steps[2].then[0]')
 */
export function noteFailurePath(error: unknown, path: string): void {
  if (typeof error === 'object' && error !== null && !failurePaths.has(error)) {
    failurePaths.set(error, path)
  }
}

/**
 * The innermost step path an error was raised at, if a step raised it.
 *
 * @example
 * failurePathOf(error) // 'steps[2].then[0]'
 */
export function failurePathOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? failurePaths.get(error) : undefined
}
