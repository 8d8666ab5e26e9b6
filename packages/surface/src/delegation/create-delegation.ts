import type { LoopGuardError } from '@baton/comm'
import { BatonError, issuesOf, parseWith } from '@baton/core'
import { z } from 'zod'
import { isSwarmAgentId, swarmIdFromAgentId } from '../swarm-agent/swarm-agent-id'
import { DelegationOptionsSchema } from './delegation-options-schema'
import type {
  CreateDelegationOptions,
  Delegation,
  DelegationMessenger,
  DelegationResult,
} from './types'

const DelegationRequest = z.object({
  fromAgentId: z.string().trim().min(1, 'must not be empty'),
  toAgentId: z.string().trim().min(1, 'must not be empty'),
  task: z.string().trim().min(1, 'must not be empty'),
})

// The messages down the cause chain, each once: a rail's "could not take envelope" alone
// would hide the "connection reset" that explains it.
function describeChain(error: unknown): string {
  const parts: string[] = []
  for (let current = error, depth = 0; current != null && depth < 5; depth++) {
    const message = current instanceof Error ? current.message : String(current)
    if (!parts.some((part) => part.includes(message))) parts.push(message)
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.join(' (cause: ') + ')'.repeat(parts.length - 1)
}

function failure(error: unknown, prefix = ''): DelegationResult {
  const code = (error as { code?: unknown } | null)?.code
  return {
    success: false,
    message: `${prefix}${describeChain(error)}`,
    errorCode: typeof code === 'string' ? code : 'UNKNOWN',
  }
}

// A message the loop guard holds for a person is not lost: `allow` delivers it. Only a message
// that will never be delivered is a failure.
function heldOrFailure(
  error: unknown,
  sent: { delegatedTo: string; prefix: string },
): DelegationResult {
  if (isHeld(error)) {
    const escalationId = error.escalation?.id
    return {
      success: true,
      held: true,
      delegatedTo: sent.delegatedTo,
      route: 'message',
      correlationId: error.correlationId,
      ...(escalationId ? { escalationId } : {}),
      errorCode: error.code,
      message: `Held for a person by the loop guard (escalation "${escalationId}"): it is delivered to "${sent.delegatedTo}" if they allow the chain more hops.`,
    }
  }
  return failure(error, sent.prefix)
}

// By its marker and code rather than instanceof: two copies of @baton/comm may be installed.
function isHeld(error: unknown): error is LoopGuardError {
  return (
    BatonError.isInstance(error) &&
    error.code === 'LOOP_GUARD_ESCALATED' &&
    (error as Partial<LoopGuardError>).held === true
  )
}

/**
 * The routing behind `useA2ADelegation`, on vanilla stores so it runs in Node and tests.
 *
 * @example
 * const delegation = createDelegation({ agents, swarms, comm: bus })
 * const result = await delegation.delegate('user', 'swarm_research', 'Compare Q1 and Q2')
 * // { success: true, delegatedTo: 'swarm:research', route: 'swarm', runId: '…' }
 */
export function createDelegation(options: CreateDelegationOptions): Delegation {
  parseWith(DelegationOptionsSchema, options, 'createDelegation options')
  const messenger = (): DelegationMessenger =>
    'getState' in options.comm ? options.comm.getState() : options.comm

  const startSwarm = async (toAgentId: string, task: string): Promise<DelegationResult> => {
    let swarmId: string
    try {
      swarmId = swarmIdFromAgentId(toAgentId)!
    } catch (error) {
      return failure(error)
    }
    const swarms = options.swarms.getState()
    if (!swarms.getSwarm(swarmId)) {
      return {
        success: false,
        message: `No swarm "${swarmId}" (agent "${toAgentId}") is known to this surface; nothing was started.`,
        errorCode: 'SWARM_NOT_FOUND',
      }
    }
    try {
      const runId = await swarms.startSwarmRun(swarmId, task)
      return {
        success: true,
        delegatedTo: `swarm:${swarmId}`,
        route: 'swarm',
        runId,
        // Started, not finished: the run's outcome is in the store (waitForSwarmRun, useSwarmRun).
        message: `Swarm "${swarmId}" started run "${runId}"; its outcome follows in runs["${runId}"].`,
      }
    } catch (error) {
      return failure(error)
    }
  }

  return {
    async delegate(fromAgentId, toAgentId, task) {
      const request = DelegationRequest.safeParse({ fromAgentId, toAgentId, task })
      if (!request.success) {
        const issues = issuesOf(request.error).map((issue) => `${issue.path}: ${issue.message}`)
        return {
          success: false,
          message: `Invalid delegation: ${issues.join('; ')}.`,
          errorCode: 'VALIDATION_FAILED',
        }
      }
      const { data } = request
      // `swarm_` is reserved for swarms: such an id goes to the swarm route even when it is
      // malformed, so the malformation is reported rather than "agent not found".
      if (isSwarmAgentId(data.toAgentId)) return startSwarm(data.toAgentId, data.task)
      const agents = options.agents.getState()
      const target = agents.getById(data.toAgentId)
      if (!target) {
        return {
          success: false,
          message: `No agent "${data.toAgentId}" is known to this surface; nothing was sent.`,
          errorCode: 'AGENT_NOT_FOUND',
        }
      }
      if (!target.agentCard.canDelegate) {
        return {
          success: true,
          delegatedTo: target.id,
          route: 'direct',
          message: `${target.name} does not delegate; run the task with it directly.`,
        }
      }
      const sender = agents.getById(data.fromAgentId)
      try {
        const envelope = await messenger().send({
          from: {
            agentId: data.fromAgentId,
            ...(sender ? { agentName: sender.name, agentRole: sender.type } : {}),
          },
          to: { agentId: target.id },
          content: data.task,
          type: 'direct',
        })
        return {
          success: true,
          delegatedTo: target.id,
          route: 'message',
          correlationId: envelope.correlationId,
          envelope,
          message: `Sent to ${target.name} (correlation "${envelope.correlationId}").`,
        }
      } catch (error) {
        return heldOrFailure(error, {
          delegatedTo: target.id,
          prefix: `Could not send the task to ${target.name}: `,
        })
      }
    },

    async forward(message, toAgentId, content) {
      try {
        const envelope = await messenger().forward(message, toAgentId, content)
        return {
          success: true,
          delegatedTo: toAgentId,
          route: 'message',
          correlationId: envelope.correlationId,
          envelope,
          message: `Forwarded to "${toAgentId}" (hop ${envelope.hop}).`,
        }
      } catch (error) {
        return heldOrFailure(error, {
          delegatedTo: toAgentId,
          prefix: `Could not forward to "${toAgentId}": `,
        })
      }
    },
  }
}
