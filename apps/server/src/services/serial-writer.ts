/**
 * Runs async writes one after another in call order; `flush()` waits for all of them. A
 * failed write is remembered and rethrown by the next `flush()`.
 *
 * @example
 * const writer = createSerialWriter()
 * writer.write(() => repository.appendEvents(runId, [event]))
 * await writer.flush()
 */
export function createSerialWriter(): SerialWriter {
  let tail: Promise<void> = Promise.resolve()
  let failure: unknown
  let queued = 0
  return {
    write(work: () => Promise<void>): void {
      queued += 1
      tail = tail.then(work).catch((error: unknown) => {
        failure ??= error
      })
    },
    /** How many writes were asked for so far (a write asked for later runs after every earlier one). */
    queued(): number {
      return queued
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

export type SerialWriter = {
  write(work: () => Promise<void>): void
  queued(): number
  flush(): Promise<void>
}
