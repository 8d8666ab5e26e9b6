import type { Envelope } from '@baton/comm'
import { BatonError, type BudgetInput, createBudget } from '@baton/core'
import type { ReplyDelta, RunHostedAgentInput, RunHostedAgentResult } from '../services'
import type { CreateAgentHostOptions, ServerAgentHost } from './agent-host'

/** What the bus side of the agent host uses of it. */
export type CreateAgentBusListenerOptions = {
  options: CreateAgentHostOptions
  /** Runs the hosted agent a message is for. */
  run: (input: RunHostedAgentInput, message?: Envelope) => Promise<RunHostedAgentResult>
}

/**
 * The bus side of the agent host: a direct message for a hosted agent that is listened for
 * runs it (with the budget its sender granted) and is answered in the same correlation, its
 * reply's text streamed live to whoever watches.
 *
 * @example
 * const busListener = createAgentBusListener({ options, run })
 * busListener.listen('incident-analyst')
 */
export function createAgentBusListener({
  options,
  run,
}: CreateAgentBusListenerOptions): Pick<ServerAgentHost, 'listen' | 'grant' | 'onReplyDelta'> {
  const listening = new Map<string, () => void>()
  const replyListeners = new Set<(delta: ReplyDelta) => void>()
  const replyDelta = (delta: ReplyDelta) => {
    for (const listener of replyListeners) {
      try {
        listener(delta)
      } catch {
        // A watcher's failure (a closed socket) must not reach the agent's run.
      }
    }
  }
  // Grants wait here for the delivery of their envelope (taken once, or dropped after a minute).
  const grants = new Map<string, { budget: BudgetInput; timer: NodeJS.Timeout }>()
  const takeGrant = (envelopeId: string): BudgetInput | undefined => {
    const grant = grants.get(envelopeId)
    if (!grant) return undefined
    clearTimeout(grant.timer)
    grants.delete(envelopeId)
    return grant.budget
  }

  const listen = (agentId: string) => {
    if (listening.has(agentId)) return
    const off = options.bus.subscribe(agentId, async (message) => {
      if (message.type !== 'direct') return
      let text: string
      const granted = takeGrant(message.id)
      // Made here, so ended here once the agent has answered (see the hosted run's own).
      const budget = granted ? createBudget(granted) : undefined
      const streaming = replyListeners.size > 0
      try {
        const result = await run(
          {
            ...(budget ? { budget } : {}),
            agent: agentId,
            input: message.content,
            correlationId: message.correlationId,
            hop: message.hop,
            from: message.from.agentId,
            // The reply's text, live, for whoever watches the conversation (it is not stored).
            ...(streaming
              ? {
                  onDelta: (text: string) =>
                    replyDelta({
                      correlationId: message.correlationId,
                      inReplyTo: message.id,
                      from: { agentId },
                      to: { agentId: message.from.agentId },
                      text,
                    }),
                }
              : {}),
          },
          message,
        )
        text = result.text
      } catch (error) {
        // A message to a revoked or unknown agent gets no reply; a failure is answered.
        if (
          BatonError.isInstance(error) &&
          ['NOT_FOUND', 'UNREGISTERED_AGENT'].includes(error.code)
        )
          return
        text = `[error] ${BatonError.isInstance(error) ? error.shortMessage : (error as Error).message}`
        options.logger.warn({ err: error, agentId }, 'hosted agent failed a message')
      } finally {
        budget?.cancel('the agent has answered')
      }
      await options.bus.reply(message, text).catch((error: unknown) => {
        options.logger.warn({ err: error, agentId }, 'reply refused')
      })
    })
    listening.set(agentId, off)
  }

  return {
    listen,
    onReplyDelta(listener) {
      replyListeners.add(listener)
      return () => replyListeners.delete(listener)
    },
    grant(envelopeId, budget) {
      const timer = setTimeout(() => grants.delete(envelopeId), 60_000)
      timer.unref()
      grants.set(envelopeId, { budget, timer })
    },
  }
}
