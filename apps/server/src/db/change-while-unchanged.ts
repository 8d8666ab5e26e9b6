import { BatonError } from '@baton/core'

/** Reads and writes of one change, before it gives up on a record others keep changing. */
export const maxChangeAttempts = 50

/** A change of a record that others changed each time it was about to be written (409). */
export class ChangeContendedError extends BatonError {
  override name = 'ChangeContendedError'
  constructor(what: string, id: string, attempts: number) {
    super(
      'CONFLICT',
      `${what[0]?.toUpperCase()}${what.slice(1)} "${id}" was changed by other requests each of the ${attempts} times this change was written; send it again.`,
      { details: { what, id } },
    )
  }
}

export type ChangeWhileUnchanged<Current, Changed> = {
  /** What is changed, for the error: `swarm`, `agent`. */
  what: string
  id: string
  /** The record as stored now (undefined: there is none, or no more). */
  read: () => Promise<Current | undefined>
  /** The change made of what was read; `attempt` counts from 1. */
  apply: (current: Current, attempt: number) => Changed | Promise<Changed>
  /** Writes `changed` only if the record is still `current`; false when it was not. */
  write: (changed: Changed, current: Current) => Promise<boolean>
  /** What was read already, for the first attempt (the caller had to read it anyway). */
  first?: Current
}

/**
 * One change of a stored record, made on the record as it is when written (optimistic
 * concurrency): read, apply, and write only while the record is still what was read; when
 * another change came in between, read and apply again, so concurrent changes of different
 * fields all stay (a read and then a plain write kept only the last). Answers what was written,
 * or undefined when the record is gone; after `maxChangeAttempts` writes refused,
 * `ChangeContendedError`.
 *
 * @example
 * const changed = await changeWhileUnchanged({
 *   what: 'swarm', id,
 *   read: () => swarms.findRecord(id),
 *   apply: (current) => ({ ...current, name }),
 *   write: (changed, current) => swarms.replaceIf(current, changed),
 * })
 */
export async function changeWhileUnchanged<Current, Changed>(
  change: ChangeWhileUnchanged<Current, Changed>,
): Promise<Changed | undefined> {
  let current = change.first ?? (await change.read())
  for (let attempt = 1; current !== undefined; attempt += 1) {
    const changed = await change.apply(current, attempt)
    if (await change.write(changed, current)) return changed
    if (attempt === maxChangeAttempts) {
      throw new ChangeContendedError(change.what, change.id, attempt)
    }
    current = await change.read()
  }
  return undefined
}
