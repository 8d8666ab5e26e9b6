import { EnvelopeType, EscalationStatus } from '@baton/comm'
import { z } from 'zod'

// What the bus routes (`routes/bus.ts`) and the ledger routes (`routes/spend.ts`) answer, as
// JSON on the wire. Written apart from the input schemas: those carry defaults and transforms.

const Count = z.number().int().nonnegative()

/** A message on the bus, as stored and sent. */
export const Envelope = z
  .object({
    id: z.string(),
    from: z.object({
      agentId: z.string(),
      agentName: z.string().optional(),
      agentRole: z.string().optional(),
    }),
    to: z.object({ agentId: z.string() }),
    content: z.string(),
    type: EnvelopeType,
    correlationId: z.string().describe('the conversation: a forward and a reply keep it'),
    hop: Count.describe('how many times the conversation had been passed on'),
    inReplyTo: z.string().optional().describe('the id of the envelope this one answers'),
    createdAt: z.iso.datetime(),
    signature: z.string().optional().describe("the sender wallet's 0x-prefixed hex signature"),
    metadata: z
      .record(z.string(), z.string())
      .optional()
      .describe('transport data outside the signature (W3C `traceparent`, `tracestate`)'),
  })
  .meta({ id: 'Envelope', description: 'One A2A message on the bus.' })

/** `POST /api/v1/messages` (202). */
export const MessageSent = z.object({
  envelope: Envelope.describe('the message as the bus sent it (its id, time and hop filled in)'),
})

/** Calls, tokens and dollars spent. */
export const SpendUsage = z
  .object({
    calls: Count.describe('model calls'),
    tokens: Count,
    costUsd: z.number().nonnegative(),
  })
  .meta({ id: 'SpendUsage', description: 'What model calls used: calls, tokens and cost.' })

export const ConversationSummary = z
  .object({
    correlationId: z.string(),
    lastAt: z.iso.datetime().describe('when its newest message was sent'),
  })
  .meta({ id: 'ConversationSummary', description: 'A conversation in the list of the newest.' })

/** `GET /api/v1/conversations`. */
export const ConversationList = z.object({
  conversations: z.array(ConversationSummary).describe('newest first'),
})

export const ConversationSpend = SpendUsage.extend({
  messageId: z.string().describe('the message whose answer spent it'),
  wallet: z.string(),
}).meta({
  id: 'ConversationSpend',
  description: 'What the answer to one message cost one wallet (the agent or a sub-agent).',
})

/** `GET /api/v1/conversations/:correlationId`. */
export const Conversation = z
  .object({
    correlationId: z.string(),
    hops: Count.describe('hops the loop guard has counted in it'),
    messages: z.array(Envelope).describe('oldest first'),
    spend: z.array(ConversationSpend).describe('per message answered and wallet, in charge order'),
  })
  .meta({ id: 'Conversation', description: 'Every message of a conversation, and its cost.' })

export const Escalation = z
  .object({
    id: z.string(),
    correlationId: z.string(),
    hops: Count.describe('hops the conversation had made when it was held'),
    path: z
      .array(z.string())
      .describe('agent ids in the order the conversation visited them, ending with the held one'),
    lastMessage: Envelope.describe('the message held until a person allows or stops the chain'),
    status: EscalationStatus,
    createdAt: z.iso.datetime(),
    resolvedAt: z.iso.datetime().optional(),
    reason: z.string().optional().describe('why a person stopped the chain'),
    extraHops: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('how many more hops a person allowed, the held message included'),
  })
  .meta({
    id: 'Escalation',
    description: 'A chain the loop guard held after it passed `maxHops`, handed to a person.',
  })

/** `POST /api/v1/escalations/:id/allow` and `/stop`. */
export const EscalationResolved = z.object({ escalation: Escalation })

/** `GET /api/v1/escalations`. */
export const EscalationList = z.object({
  maxHops: Count.describe('the hops a chain may make before it is held'),
  escalations: z.array(Escalation.extend({ maxHops: Count })).describe('oldest change first'),
})

/** `GET /api/v1/spend`: one row per wallet (`by=wallet`) or per run (`by=run`). */
export const SpendReport = z
  .object({
    by: z.enum(['wallet', 'run']),
    since: z.iso.datetime({ offset: true }).nullable().describe('the `since` asked for'),
    spend: z.array(
      z.union([
        SpendUsage.extend({ wallet: z.string() }),
        SpendUsage.extend({ run: z.string().describe('the run id') }),
      ]),
    ),
    total: SpendUsage,
  })
  .meta({ id: 'Spend', description: 'Spend grouped by wallet or by run.' })

export const LedgerEntry = z
  .object({
    id: z.number().int(),
    runId: z.string().nullable().describe('null for spend outside a run (a bus answer)'),
    wallet: z.string(),
    stepPath: z.string().nullable().describe('the step that spent it (`steps[1].then[0]`)'),
    attempt: z.number().int().nullable().describe("the run's attempt that spent it"),
    calls: Count,
    tokens: Count,
    costUsd: z.number().nonnegative(),
    at: z.iso.datetime(),
  })
  .meta({ id: 'LedgerEntry', description: 'One row of the spend ledger.' })

const ledgerPage = {
  entries: z.array(LedgerEntry).describe('oldest first'),
  total: Count.describe('rows that match, all pages'),
  limit: z.number().int(),
  offset: z.number().int(),
}

/** `GET /api/v1/ledger`. */
export const LedgerPage = z.object(ledgerPage)

/** `GET /api/v1/runs/:id/ledger`. */
export const RunLedgerPage = z.object({
  runId: z.string(),
  attempt: Count.describe("the run's latest attempt"),
  usage: SpendUsage.describe('what the run counts as spent'),
  ledgerTotal: SpendUsage.describe("what the ledger holds for the run, every attempt's rows"),
  ...ledgerPage,
})

const A2AAgentSkill = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).describe('example prompts'),
})

/**
 * An A2A v1.0 agent card, as `GET /.well-known/agent-card.json` and
 * `GET /a2a/:agentId/.well-known/agent-card.json` write it: the fields the server sets.
 */
export const A2AAgentCard = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    supportedInterfaces: z
      .array(
        z.object({
          url: z.string().describe("the agent's JSON-RPC endpoint"),
          protocolBinding: z.string().describe('`JSONRPC`'),
          protocolVersion: z.string().describe('the A2A version served there (`1.0`, `0.3`)'),
        }),
      )
      .describe('the first is preferred'),
    capabilities: z.object({
      streaming: z.boolean().optional(),
      pushNotifications: z.boolean().optional(),
    }),
    defaultInputModes: z.array(z.string()).describe('media types'),
    defaultOutputModes: z.array(z.string()).describe('media types'),
    skills: z.array(A2AAgentSkill).describe('one per capability, else one for the whole agent'),
    securitySchemes: z
      .record(
        z.string(),
        z.object({
          httpAuthSecurityScheme: z.object({
            scheme: z.string(),
            description: z.string().optional(),
          }),
        }),
      )
      .optional()
      .describe('present when the server has an API token: HTTP bearer'),
    securityRequirements: z
      .array(z.object({ schemes: z.record(z.string(), z.object({ list: z.array(z.string()) })) }))
      .optional()
      .describe('present when the server has an API token'),
  })
  .meta({ id: 'A2AAgentCard', description: 'An A2A v1.0 agent card of a hosted agent.' })
