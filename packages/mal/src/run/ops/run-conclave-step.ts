import type { ConclaveStep } from '../../plan'
import { renderTemplate, renderValue } from '../../template'
import type { StepContext, StepOutcome } from './step-context'

/**
 * Runs a `conclave` step on the run's shared keyspace: `write` gives the new entry, `read`
 * the entry (or `null`), `list` the keys, `delete` whether the key existed. A stale
 * `ifVersion` fails the step with `CONCLAVE_CONFLICT`. Nothing is charged.
 *
 * @example
 * const { value } = await runConclaveStep(context) // { value, writtenBy, version: 3, updatedAt }
 */
export async function runConclaveStep(context: StepContext<ConclaveStep>): Promise<StepOutcome> {
  const { step, scope, services } = context
  const { store, space } = services.conclave
  const wallet = services.coordinatorWallet
  const key = step.key === undefined ? '' : renderTemplate(step.key, scope)
  const ifVersion = step.ifVersion === undefined ? {} : { ifVersion: step.ifVersion }
  switch (step.action) {
    case 'write': {
      const value = renderValue(step.value, scope)
      return {
        value: await store.write(space, key, value, { writtenBy: wallet, ...ifVersion }),
        wallet,
      }
    }
    case 'read':
      return { value: await store.read(space, key), wallet }
    case 'list':
      return { value: await store.list(space), wallet }
    case 'delete':
      return { value: await store.delete(space, key, ifVersion), wallet }
  }
}
