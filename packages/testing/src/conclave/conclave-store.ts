/**
 * The shape of `@baton/mal`'s `ConclaveStore` that the contract drives, written out here
 * because this package depends on no `@baton/*` package (they depend on it for their tests).
 */
export type ConclaveStoreLike = {
  read(
    space: string,
    key: string,
  ): Promise<{ value: unknown; writtenBy: string; version: number; updatedAt: string } | null>
  write(
    space: string,
    key: string,
    value: unknown,
    options: { writtenBy: string; ifVersion?: number },
  ): Promise<{ version: number; updatedAt: string }>
  delete(space: string, key: string, options?: { ifVersion?: number }): Promise<boolean>
  list(space: string): Promise<string[]>
  expire(space: string, afterMs: number): Promise<void>
}

/**
 * One compare-and-set writer: appends `id` to the list under `counter` `increments` times,
 * reading the version first and trying again on `CONCLAVE_CONFLICT`. Several of them at
 * once must leave a list of every append and a version of their total.
 *
 * @example
 * await Promise.all([0, 1, 2].map((id) => appendAsWriter({ store, space, id, increments: 4 })))
 */
export async function appendAsWriter({
  store,
  space,
  id,
  increments,
}: {
  store: ConclaveStoreLike
  space: string
  id: number
  increments: number
}): Promise<void> {
  for (let done = 0; done < increments; ) {
    const current = await store.read(space, 'counter')
    const seen = (current?.value as number[] | undefined) ?? []
    try {
      await store.write(space, 'counter', [...seen, id], {
        writtenBy: `w${id}`,
        ifVersion: current?.version ?? 0,
      })
      done += 1
    } catch (error) {
      if ((error as { code?: string }).code !== 'CONCLAVE_CONFLICT') throw error
    }
  }
}
