import { z } from 'zod'

/**
 * One line of an external agent's output in Baton's JSON-lines format (one JSON object per
 * line on stdout; lines that are not JSON are ignored):
 *
 * - `{"type":"text","text":"..."}`: progress text; the last one is the result if no `result` comes.
 * - `{"type":"usage","calls":1,"inputTokens":120,"outputTokens":40,"costUsd":0.001}`: spend of
 *   one or more model calls, charged to the sub-agent's budget as it arrives (every field optional;
 *   `calls` defaults to 1).
 * - `{"type":"question","text":"..."}`: it asks its caller; the answer is written to its stdin as
 *   `{"type":"answer","text":"..."}`.
 * - `{"type":"result","text":"...","costUsd":0.02}`: its final report. `costUsd`, when given, is
 *   the run's total: whatever `usage` lines did not charge yet is charged now.
 * - `{"type":"session","sessionId":"..."}`: a session a later turn may resume.
 * - `{"type":"error","message":"..."}`: it failed.
 */
export const AdapterEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('usage'),
    calls: z.number().int().nonnegative().optional(),
    inputTokens: z.number().nonnegative().optional(),
    outputTokens: z.number().nonnegative().optional(),
    tokens: z.number().nonnegative().optional(),
    costUsd: z.number().nonnegative().optional(),
  }),
  z.object({ type: z.literal('question'), text: z.string() }),
  z.object({
    type: z.literal('result'),
    text: z.string(),
    costUsd: z.number().nonnegative().optional(),
    sessionId: z.string().optional(),
  }),
  z.object({ type: z.literal('session'), sessionId: z.string() }),
  z.object({ type: z.literal('error'), message: z.string() }),
])
export type AdapterEvent = z.infer<typeof AdapterEvent>

/** What a turn of an external agent is started with. */
export type AdapterTurnContext = {
  /** 1 for the task, 2+ for each `sendAgent` of a multi-turn agent. */
  turn: number
  /** The session its previous turn reported, if any. */
  sessionId?: string
}

/** How to run one external agent as a child process. */
export type AgentAdapter = {
  /** An executable on `PATH`, or a path to one. */
  command: string
  /**
   * The arguments for a turn; `directory` is also its working directory. The task is text a
   * model may have written: put it after `--` (or pass it as an option's value), never where
   * the program reads flags. A task that starts with `-` and is not after `--` is refused.
   */
  args: (task: string, directory: string, context: AdapterTurnContext) => string[]
  /** Turns one line of its stdout into events (default: Baton's JSON-lines format). */
  parse?: (line: string) => AdapterEvent | AdapterEvent[] | undefined
  /**
   * Names of the caller's environment variables it is given (its API key, say). Nothing else
   * of the caller's environment reaches it but `PATH` and `HOME`.
   */
  passEnv?: readonly string[]
  /** Set in the environment it runs with (after `passEnv`). */
  env?: Record<string, string>
  /** Between SIGTERM and SIGKILL when it is stopped (default 2000 ms). */
  killGraceMs?: number
}

/** Checks the shape of an adapter definition given to `createSupervisor`. */
export const AgentAdapterSchema = z.object({
  command: z.string().min(1, 'must name an executable'),
  args: z.custom<AgentAdapter['args']>(
    (value) => typeof value === 'function',
    'must be a function',
  ),
  parse: z
    .custom<NonNullable<AgentAdapter['parse']>>(
      (value) => typeof value === 'function',
      'must be a function',
    )
    .optional(),
  passEnv: z.array(z.string().min(1)).optional(),
  env: z.record(z.string(), z.string()).optional(),
  killGraceMs: z.number().int().nonnegative().optional(),
})
