import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { parseArgs } from 'node:util'
import {
  BatonError,
  type Budget,
  type BudgetInput,
  createBudget,
  createRegistryClient,
  createStaticRegistry,
  type RegistryClient,
} from '@baton/core'
import { type RunPlanOptions, type RunResult, resumeRun, runPlan } from '../run'
import { formatIssue, PlanValidationError, safeParsePlan } from '../validate'
import { CliUsageError } from './cli-errors'
import { createProgressFormatter } from './format-progress'
import { parseInputFlags } from './parse-input-flags'
import { runMcpBridge } from './run-mcp-bridge'

export type CliIo = {
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown }
  stdin: Readable
  env: Record<string, string | undefined>
  /** Aborted on Ctrl-C: cancels the run in flight. */
  signal?: AbortSignal
}

export const EXIT = { ok: 0, failed: 1, paused: 2, usage: 64, cancelled: 130 } as const

const USAGE = `Usage:
  mal check <plan.yaml> [--require-output]
  mal mcp --server <url> [--token <token>]
  mal run <plan.yaml> [--input name=value ...] [--registry <url> | --agents <agents.json>]
          [--budget-cost <usd>] [--budget-calls <n>] [--budget-seconds <s>]
          [--answer <text> ...] [--workspace <dir>] [--json]

  mcp     serves the Baton server's MCP tools (list_agents, delegate, run_plan, answer_run,
          get_run) over stdio, for MCP clients that start a command
  check   validates a plan; every problem is shown as file:line:column path: message
  run     runs a plan, showing each step and its spend as it happens; an ask_user step
          takes the next --answer, else a line from stdin
Exit codes: 0 done, 1 failed or invalid, 2 paused without an answer, 64 usage, 130 cancelled.`

/**
 * The `mal` command line: `mal check` and `mal run`. Returns the exit code.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env })
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    if (argv[0] === 'mcp') return await runMcpBridge(argv.slice(1), io)
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        input: { type: 'string', short: 'i', multiple: true },
        registry: { type: 'string' },
        agents: { type: 'string' },
        'budget-cost': { type: 'string' },
        'budget-calls': { type: 'string' },
        'budget-seconds': { type: 'string' },
        answer: { type: 'string', multiple: true },
        workspace: { type: 'string' },
        json: { type: 'boolean' },
        'require-output': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
    const [command, file, ...extra] = positionals
    if (values.help) {
      io.stdout.write(`${USAGE}\n`)
      return EXIT.ok
    }
    if (!command || !['check', 'run'].includes(command)) {
      throw new CliUsageError(command ? `Unknown command "${command}".` : 'Name a command.')
    }
    if (!file) throw new CliUsageError(`mal ${command} needs a plan file.`)
    if (extra.length > 0) throw new CliUsageError(`Unexpected argument "${extra[0]}".`)
    let source: string
    try {
      source = await readFile(file, 'utf8')
    } catch (error) {
      throw new CliUsageError(`Cannot read ${file}: ${(error as Error).message}`)
    }
    const parsed = safeParsePlan(source, {
      sourceName: file,
      ...(values['require-output'] ? { requireOutput: true } : {}),
    })
    if (!parsed.success) {
      for (const issue of parsed.error.issues) io.stderr.write(`${formatIssue(issue, file)}\n`)
      io.stderr.write(`${file}: ${parsed.error.issues.length} problem(s)\n`)
      return EXIT.failed
    }
    if (command === 'check') {
      io.stdout.write(`${file}: ok (${parsed.plan.steps.length} top-level steps)\n`)
      return EXIT.ok
    }

    const registry = await registryOf({
      url: values.registry ?? io.env.BATON_REGISTRY_URL,
      agentsFile: values.agents,
    })
    const limits = limitsOf(values)
    const progress = createProgressFormatter()
    const options: Omit<RunPlanOptions, 'inputs'> = {
      registry,
      ...(io.signal ? { signal: io.signal } : {}),
      ...(values.workspace ? { workspaceRoot: path.resolve(values.workspace) } : {}),
      // Progress, and each step's text as its model streams it, go to stderr; stdout keeps
      // only the output, for piping.
      onEvent: (event) => {
        const text = progress.render(event)
        if (text) io.stderr.write(text)
      },
    }
    const answers = [...(values.answer ?? [])]
    // stdin is read only if a question needs an answer, so a run never waits on it otherwise.
    let reader: ReturnType<typeof createInterface> | undefined
    let lines: AsyncIterator<string> | undefined
    const nextAnswer = async (): Promise<string | undefined> => {
      if (answers.length > 0) return answers.shift()
      reader ??= createInterface({ input: io.stdin, terminal: false })
      lines ??= reader[Symbol.asyncIterator]()
      const line = await lines.next()
      return line.done ? undefined : line.value
    }
    let result: RunResult
    try {
      result = await runPlan(parsed.plan, {
        ...options,
        ...budgetOf(limits),
        inputs: parseInputFlags(values.input ?? [], parsed.plan.inputs),
      })
      while (result.status === 'paused' && result.state) {
        const answer = await nextAnswer()
        if (answer === undefined) break
        // A fresh budget for each part of the run, less what the earlier parts used: the
        // time spent waiting for an answer is not the run's.
        const { usage, wallMs } = result.state
        result = await resumeRun(result.state, answer, {
          ...options,
          ...budgetOf(limits, { ...usage, wallMs }),
        })
      }
    } finally {
      reader?.close()
    }
    if (values.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
    else if (result.status === 'done' || result.status === 'stopped') {
      const { output } = result
      io.stdout.write(`${typeof output === 'string' ? output : JSON.stringify(output, null, 2)}\n`)
    }
    if (result.status === 'paused') {
      io.stderr.write(`Paused without an answer to: ${result.question}\n`)
      return EXIT.paused
    }
    if (result.status === 'cancelled') return EXIT.cancelled
    return result.status === 'failed' ? EXIT.failed : EXIT.ok
  } catch (error) {
    if (
      error instanceof CliUsageError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      io.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`)
      return EXIT.usage
    }
    if (error instanceof PlanValidationError) {
      io.stderr.write(`${error.message}\n`)
      return EXIT.failed
    }
    io.stderr.write(
      `${BatonError.isInstance(error) ? `${error.code}: ` : ''}${(error as Error).message}\n`,
    )
    return EXIT.failed
  }
}

async function registryOf(options: {
  url: string | undefined
  agentsFile: string | undefined
}): Promise<RegistryClient> {
  if (options.url && options.agentsFile)
    throw new CliUsageError('Give --registry or --agents, not both.')
  if (options.url) return createRegistryClient({ baseUrl: options.url })
  if (!options.agentsFile) return createStaticRegistry([])
  let agents: unknown
  try {
    agents = JSON.parse(await readFile(options.agentsFile, 'utf8'))
  } catch (error) {
    throw new CliUsageError(
      `Cannot read agents from ${options.agentsFile}: ${(error as Error).message}`,
    )
  }
  if (!Array.isArray(agents))
    throw new CliUsageError(`${options.agentsFile} must hold a JSON array of agents.`)
  try {
    return createStaticRegistry(agents)
  } catch (error) {
    // Name the file: the registry's own message only knows array positions.
    throw new CliUsageError(`Bad agents in ${options.agentsFile}: ${(error as Error).message}`)
  }
}

type CliLimits = { costUsd?: number; calls?: number; maxWallMs?: number }

function limitsOf(values: Record<string, unknown>): CliLimits {
  const limits: CliLimits = {}
  const read = (flag: string) => {
    const text = values[flag]
    if (text === undefined) return undefined
    const value = Number(text)
    if (!Number.isFinite(value) || value < 0)
      throw new CliUsageError(`--${flag} must be a number ≥ 0, got "${String(text)}".`)
    return value
  }
  const cost = read('budget-cost')
  const calls = read('budget-calls')
  const seconds = read('budget-seconds')
  if (cost !== undefined) limits.costUsd = cost
  if (calls !== undefined) limits.calls = Math.floor(calls)
  if (seconds !== undefined) limits.maxWallMs = seconds * 1000
  return limits
}

// The budget of one part of a run: the flags' limits less what earlier parts spent.
function budgetOf(
  limits: CliLimits,
  spent: { costUsd: number; calls: number; wallMs: number } = { costUsd: 0, calls: 0, wallMs: 0 },
): { budget?: Budget } {
  if (Object.keys(limits).length === 0) return {}
  const left: BudgetInput = {}
  if (limits.costUsd !== undefined) left.costUsd = Math.max(0, limits.costUsd - spent.costUsd)
  if (limits.calls !== undefined) left.calls = Math.max(0, limits.calls - spent.calls)
  if (limits.maxWallMs !== undefined) left.maxWallMs = Math.max(0, limits.maxWallMs - spent.wallMs)
  return { budget: createBudget(left, { name: 'cli' }) }
}
