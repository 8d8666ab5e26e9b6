import { randomUUID } from 'node:crypto'
import { Budget as BudgetSchema, parseWith } from '@baton/core'
import { firstJobKey, type RunJob } from '../queue'
import type { RunContext } from './run-context'
import { assertOpen } from './run-drain'
import type { StartRunInput, StartSwarmInput } from './run-service'

/** See `RunService.start`: validates and stores the run, and queues it. */
export async function startRun(context: RunContext, input: StartRunInput): Promise<{ id: string }> {
  assertOpen(context)
  const plan = context.plans.validate(input.plan as string | object)
  const budget = input.budget ? parseWith(BudgetSchema, input.budget, 'budget') : undefined
  const id = input.id ?? randomUUID()
  await context.runs.create({
    id,
    kind: 'plan',
    plan: plan as unknown as Record<string, unknown>,
    inputs: input.inputs ?? {},
    ...(input.budget ? { budget: input.budget as Record<string, unknown> } : {}),
    ...(input.owner ? { owner: input.owner } : {}),
  })
  void budget
  context.plans.keep(id, plan)
  await queueNew(context, { kind: 'start', runId: id })
  return { id }
}

/** See `RunService.startSwarm`: stores the swarm run, and queues it. */
export async function startSwarmRun(
  context: RunContext,
  { swarm, task, budget, owner, ...input }: StartSwarmInput,
): Promise<{ id: string }> {
  assertOpen(context)
  if (budget) parseWith(BudgetSchema, budget, 'budget')
  const id = input.id ?? randomUUID()
  await context.runs.create({
    id,
    kind: 'swarm',
    swarmId: swarm.id,
    plan: swarm as unknown as Record<string, unknown>,
    inputs: { task },
    ...(budget ? { budget: budget as Record<string, unknown> } : {}),
    ...(owner ? { owner } : {}),
  })
  await queueNew(context, { kind: 'swarm', runId: id })
  return { id }
}

/**
 * Queues a run just stored, as its first job (keyed by the run: see `queueNeverStarted`); when
 * the queue does not take it (Redis away past its bound) the run is deleted again, so nothing
 * of the refused request executes later.
 */
export async function queueNew(context: RunContext, job: RunJob): Promise<void> {
  try {
    await context.options.queue.add(job, { key: firstJobKey(job.runId) })
  } catch (error) {
    await context.runs.discardUnstarted(job.runId).catch((discardError: unknown) => {
      context.options.logger.error({ err: discardError, runId: job.runId }, 'discard failed')
    })
    throw error
  }
}
