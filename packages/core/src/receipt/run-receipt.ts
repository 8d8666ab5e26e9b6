import { z } from 'zod'

const Hash = z.string().regex(/^0x[0-9a-f]{64}$/, 'must be a 32-byte hex hash')
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be an address')
const Usage = z.strictObject({
  calls: z.number().nonnegative(),
  tokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
})

/** One tool call an agent made during a step, as the receipt records it. */
export const ReceiptToolCall = z.strictObject({
  /** The name the model called (`mcp__files__read_file`). */
  name: z.string(),
  /** The tool's own name, and the MCP server that ran it (for an MCP tool). */
  tool: z.string(),
  server: z.string().optional(),
  /** The agent that called it. */
  wallet: z.string(),
  /** Of the input the tool was given. */
  inputHash: Hash,
  status: z.enum(['done', 'failed', 'unfinished']),
  durationMs: z.number().nonnegative().optional(),
  /** Why it failed (`MCP_TOOL_ERROR`, `TOOL_UNAVAILABLE`, ...). */
  errorCode: z.string().optional(),
})
export type ReceiptToolCall = z.infer<typeof ReceiptToolCall>

/** What one step of a run did, as its receipt records it. */
export const ReceiptStep = z.strictObject({
  path: z.string(),
  op: z.string(),
  saveAs: z.string().optional(),
  iteration: z.number().int().positive().optional(),
  /** The wallet that did the work (the agent's, or the coordinator's for models and tools). */
  agentWallet: z.string().optional(),
  /** The step as the plan wrote it and the values its templates read. */
  inputHash: Hash,
  /** The value the step gave (`null` when it failed or did not finish). */
  outputHash: Hash,
  usage: Usage,
  status: z.enum(['done', 'failed', 'unfinished']),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  /** The tool calls of the step's agents, in the order they were made (absent: none). */
  toolCalls: z.array(ReceiptToolCall).optional(),
})
export type ReceiptStep = z.infer<typeof ReceiptStep>

/** The signed facts of a run: what was asked, what each step did, what it cost, how it ended. */
export const RunReceiptContent = z.strictObject({
  schemaVersion: z.literal(1),
  runId: z.string().min(1),
  /** Of the validated plan, computed before the run started. */
  planHash: Hash,
  inputsHash: Hash,
  steps: z.array(ReceiptStep),
  usage: Usage,
  usageByWallet: z.record(z.string(), Usage),
  status: z.enum(['done', 'stopped', 'failed', 'paused', 'cancelled']),
  outputHash: Hash,
  error: z
    .strictObject({ code: z.string(), message: z.string(), path: z.string().optional() })
    .optional(),
  issuedAt: z.string(),
})
export type RunReceiptContent = z.infer<typeof RunReceiptContent>

/**
 * A run receipt: its content, the runtime that signed it, a hash of every field (so a
 * changed byte is found at its field) and the runtime's EIP-712 signature over them.
 */
export const RunReceipt = RunReceiptContent.extend({
  runtime: Address,
  fieldHashes: z.record(z.string(), Hash),
  signature: z.string().regex(/^0x[0-9a-fA-F]+$/, 'must be a hex signature'),
})
export type RunReceipt = z.infer<typeof RunReceipt>
