import { createStaticRegistry } from '@baton/core'
import { describe, expect, it } from 'vitest'
import { runPlan } from '../run/run-plan'
import { createConclaveTools } from './create-conclave-tools'
import { createMemoryConclave } from './create-memory-conclave'

const registry = createStaticRegistry([])

describe('the conclave op', () => {
  it('writes, reads, lists and deletes versioned entries in the run’s keyspace', async () => {
    const store = createMemoryConclave()
    const result = await runPlan(
      {
        steps: [
          { op: 'conclave', action: 'write', key: 'draft', value: 'v1', saveAs: 'first' },
          {
            op: 'conclave',
            action: 'write',
            key: 'draft',
            value: '{{first.value}} v2',
            ifVersion: 1,
            saveAs: 'second',
          },
          { op: 'conclave', action: 'read', key: 'draft', saveAs: 'read' },
          { op: 'conclave', action: 'list', saveAs: 'keys' },
          { op: 'conclave', action: 'delete', key: 'draft', saveAs: 'deleted' },
        ],
      },
      { registry, conclave: { store, retainMs: 60_000 }, coordinatorWallet: '0xcoordinator' },
    )
    expect(result.status).toBe('done')
    expect(result.values.read).toMatchObject({
      value: 'v1 v2',
      writtenBy: '0xcoordinator',
      version: 2,
    })
    expect(result.values.keys).toEqual(['draft'])
    expect(result.values.deleted).toBe(true)
    expect(result.usage).toEqual({ calls: 0, tokens: 0, costUsd: 0 })
  })

  it('fails the step with CONCLAVE_CONFLICT on a stale ifVersion, keeping the newer value', async () => {
    const store = createMemoryConclave()
    const result = await runPlan(
      {
        steps: [
          { op: 'conclave', action: 'write', key: 'k', value: 1 },
          { op: 'conclave', action: 'write', key: 'k', value: 2, ifVersion: 0 },
        ],
      },
      { registry, conclave: { store, retainMs: 60_000 } },
    )
    expect(result.error).toMatchObject({ code: 'CONCLAVE_CONFLICT', path: 'steps[1]' })
    expect((await store.read(result.runId, 'k'))?.value).toBe(1)
  })

  it('expires the keyspace with the run, and shares its root’s when given one', async () => {
    const store = createMemoryConclave()
    const root = await runPlan(
      { steps: [{ op: 'conclave', action: 'write', key: 'k', value: 1 }] },
      { registry, conclave: { store } },
    )
    expect(await store.list(root.runId)).toEqual([])
    const sub = await runPlan(
      { steps: [{ op: 'conclave', action: 'write', key: 'from-sub', value: 1 }] },
      { registry, conclave: { store, space: 'root-run' } },
    )
    expect(sub.status).toBe('done')
    expect(await store.list('root-run')).toEqual(['from-sub'])
  })

  it('refuses ifVersion on a read when the plan is parsed', async () => {
    await expect(
      runPlan(
        { steps: [{ op: 'conclave', action: 'read', key: 'k', ifVersion: 1 }] },
        { registry },
      ),
    ).rejects.toMatchObject({ code: 'PLAN_INVALID' })
  })
})

describe('createConclaveTools', () => {
  it('gives agents the same keyspace, their writes attributed to their wallet, conflicts as data', async () => {
    const store = createMemoryConclave()
    const tools = createConclaveTools({ store, space: 'run-1', wallet: '0xmember' })
    const call = (name: string, input: object) =>
      tools[name]!.execute!(input as never, { toolCallId: name, messages: [] })
    expect(await call('conclave_write', { key: 'notes', value: 'hi', ifVersion: 0 })).toMatchObject(
      {
        ok: true,
        result: { writtenBy: '0xmember', version: 1 },
      },
    )
    expect(await call('conclave_write', { key: 'notes', value: 'x', ifVersion: 0 })).toMatchObject({
      ok: false,
      code: 'CONCLAVE_CONFLICT',
    })
    expect(await call('conclave_list', {})).toEqual({ ok: true, result: ['notes'] })
    expect((await call('conclave_read', { key: 'notes' })) as object).toMatchObject({
      result: { value: 'hi' },
    })
  })
})
