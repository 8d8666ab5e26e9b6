/**
 * Runs async writes one after another in call order; `flush()` waits for all of them. A
 * failed write is remembered and rethrown by the next `flush()`.
 *
 * @example
 * const writer = createSerialWriter()
 * writer.write(() => repository.appendEvents(runId, [event]))
 * await writer.flush()
 */
export function createSerialWriter() {
  let tail: Promise<void> = Promise.resolve()
  let failure: unknown
  return {
    write(work: () => Promise<void>): void {
      tail = tail.then(work).catch((error: unknown) => {
        failure ??= error
      })
    },
    async flush(): Promise<void> {
      await tail
      if (failure !== undefined) {
        const error = failure
        failure = undefined
        throw error
      }
    },
  }
}
