import { BatonError } from '@baton/core'
import { type ToolSet, tool } from 'ai'
import { z } from 'zod'
import type { ConclaveStore } from './conclave-types'

export type ConclaveToolsOptions = {
  store: ConclaveStore
  /** The keyspace: the root run's id, shared by the whole swarm or delegation tree. */
  space: string
  /** The wallet of the agent the tools are for (what its writes are attributed to). */
  wallet: string
}

// A refusal goes back to the model as data, so it can read again and retry a conflict.
async function answer(work: () => Promise<unknown>) {
  try {
    return { ok: true, result: await work() }
  } catch (error) {
    if (!BatonError.isInstance(error)) throw error
    return { ok: false, code: error.code, message: error.shortMessage, details: error.details }
  }
}

// Made once: a zod schema costs far more to build than the tools around it, and every member
// call or task turn gets tools of its own.
const Key = z.string().min(1).describe('the key')
const ReadInput = z.object({ key: Key })
const WriteInput = z.object({
  key: Key,
  value: z.unknown(),
  ifVersion: z.number().int().min(0).optional(),
})
const ListInput = z.object({})
const DeleteInput = z.object({ key: Key, ifVersion: z.number().int().min(0).optional() })

/**
 * The conclave as tools for an agent in a swarm or a sub-agent tree: `conclave_read`,
 * `conclave_write` (with `ifVersion` for compare-and-set), `conclave_list`, `conclave_delete`.
 *
 * @example
 * const extraTools = createConclaveTools({ store, space: rootRunId, wallet: agent.wallet })
 * const card = { ...agent, tools: [...agent.tools, ...Object.keys(extraTools)] }
 * await runAgent(card, task, { budget, extraTools })
 */
export function createConclaveTools(options: ConclaveToolsOptions): ToolSet {
  const { store, space, wallet } = options
  return {
    conclave_read: tool({
      description:
        'Read an entry of the shared conclave: { value, writtenBy, version, updatedAt } or null.',
      inputSchema: ReadInput,
      execute: ({ key }) => answer(() => store.read(space, key)),
    }),
    conclave_write: tool({
      description:
        'Write a value to the shared conclave. Pass ifVersion (the version you read; 0 for a new key) so a concurrent write is not lost: a stale one is refused with CONCLAVE_CONFLICT.',
      inputSchema: WriteInput,
      execute: ({ key, value, ifVersion }) =>
        answer(() =>
          store.write(space, key, value, {
            writtenBy: wallet,
            ...(ifVersion === undefined ? {} : { ifVersion }),
          }),
        ),
    }),
    conclave_list: tool({
      description: 'List the keys of the shared conclave.',
      inputSchema: ListInput,
      execute: () => answer(() => store.list(space)),
    }),
    conclave_delete: tool({
      description: 'Delete a key of the shared conclave (with ifVersion: only if unchanged).',
      inputSchema: DeleteInput,
      execute: ({ key, ifVersion }) =>
        answer(() => store.delete(space, key, ifVersion === undefined ? {} : { ifVersion })),
    }),
  }
}
