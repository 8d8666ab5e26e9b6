import { formatPath } from '@baton/core'
import { type Document, isAlias, LineCounter, parseDocument, visit } from 'yaml'
import type { z } from 'zod'
import { type Plan, PlanSchema, STEP_OPS } from '../plan'
import { type CheckPlanOptions, checkPlan, type RawIssue } from './check-plan'
import { checkPlanLimits, DEFAULT_PLAN_LIMITS, type PlanLimits, textTooDeep } from './plan-limits'
import { type PlanIssue, PlanValidationError } from './plan-validation-error'
import { locatePath } from './source-map'
import { markValidated } from './validated-plans'
import { checkWorstCase } from './worst-case-steps'

export type ParsePlanOptions = CheckPlanOptions & {
  /** Names the source in messages (e.g. the file name). */
  sourceName?: string
  /** How large a plan may be (each limit defaults to `DEFAULT_PLAN_LIMITS`'). */
  limits?: Partial<PlanLimits>
}

export type SafeParsePlanResult =
  | { success: true; plan: Plan }
  | { success: false; error: PlanValidationError }

/**
 * Validates a plan (YAML or JSON text, or an already-parsed object) before anything runs.
 * Every problem is reported at once, each with its path and, for text, its line and column.
 * It never throws: a plan past a limit (size, nesting, steps, YAML aliases) is an issue that
 * names the limit and where it was passed.
 *
 * @example
 * const result = safeParsePlan('steps:\n  - op: stop\n    output: "{{nope}}"\n')
 * if (!result.success) console.log(result.error.issues[0]) // { path: 'steps[0].output', line: 3, column: 13, ... }
 */
export function safeParsePlan(
  source: string | object,
  options: ParsePlanOptions = {},
): SafeParsePlanResult {
  try {
    return parseWithin(source, options, { ...DEFAULT_PLAN_LIMITS, ...options.limits })
  } catch (error) {
    // Whatever the input, a safe parse answers; an unforeseen failure is reported as an issue.
    const reason = error instanceof Error ? error.message : String(error)
    return failWith(options, [{ path: '', message: `the plan could not be read: ${reason}` }])
  }
}

function failWith(options: ParsePlanOptions, issues: PlanIssue[]): SafeParsePlanResult {
  return {
    success: false,
    error: new PlanValidationError(sortIssues(dedupe(issues)), { source: options.sourceName }),
  }
}

function parseWithin(
  source: string | object,
  options: ParsePlanOptions,
  limits: PlanLimits,
): SafeParsePlanResult {
  const fail = (issues: PlanIssue[]) => failWith(options, issues)
  let raw: unknown = source
  let located: { document: Document; lineCounter: LineCounter } | undefined
  if (typeof source === 'string') {
    if (source.length > limits.maxBytes) {
      const message = `${source.length} characters, more than ${limits.maxBytes} (limit maxBytes)`
      return fail([{ path: '', line: 1, column: 1, message }])
    }
    const lineCounter = new LineCounter()
    const tooDeep = textTooDeep(source, limits.maxDepth)
    if (tooDeep !== undefined) {
      const { line, column } = positionAt(source, tooDeep)
      const message = `nested deeper than ${limits.maxDepth} levels (limit maxDepth)`
      return fail([{ path: '', line, column, message }])
    }
    const document = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true })
    if (document.errors.length > 0) {
      return fail(
        document.errors.map((error) => {
          const { line, col } = lineCounter.linePos(error.pos[0])
          return { path: '', line, column: col, message: firstLine(error.message) }
        }),
      )
    }
    located = { document, lineCounter }
    try {
      raw = document.toJS({ maxAliasCount: limits.maxAliases })
    } catch (error) {
      if (!(error instanceof ReferenceError)) throw error
      const message = `its YAML aliases expand more than ${limits.maxAliases} times (limit maxAliases)`
      return fail([{ path: '', ...firstAlias(document, lineCounter), message }])
    }
  }
  const place = (issue: RawIssue): PlanIssue => {
    const position = located ? locatePath(located, issue.path) : undefined
    return { path: formatPath(issue.path), ...position, message: issue.message }
  }
  const placeAll = (raws: RawIssue[]): PlanIssue[] =>
    [...raws].sort((a, b) => comparePaths(a.path, b.path)).map(place)
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return fail([place({ path: [], message: 'a plan must be an object with a steps list' })])
  }
  const beyond = checkPlanLimits(raw, limits)
  if (beyond.length > 0) return fail(beyond.map(place))
  const parsed = PlanSchema.safeParse(raw)
  const issues = placeAll([
    ...(parsed.success ? [] : zodIssues(parsed.error)),
    ...checkPlan(raw, options),
  ])
  if (issues.length > 0 || !parsed.success) return fail(issues)
  const tooLong = checkWorstCase(parsed.data, limits.maxRunSteps)
  if (tooLong.length > 0) return fail(placeAll(tooLong))
  // zod hands values it does not check (a stop's output, a tool's args) through by
  // reference: a copy keeps the freeze off the caller's own objects.
  const plan = typeof source === 'string' ? parsed.data : structuredClone(parsed.data)
  return { success: true, plan: markValidated(plan) }
}

/**
 * Like `safeParsePlan`, but throws a `PlanValidationError` (code `PLAN_INVALID`).
 *
 * @example
 * const plan = parsePlan(readFileSync('plan.yaml', 'utf8'), { requireOutput: true })
 */
export function parsePlan(source: string | object, options: ParsePlanOptions = {}): Plan {
  const result = safeParsePlan(source, options)
  if (!result.success) throw result.error
  return result.plan
}

function zodIssues(error: z.ZodError): RawIssue[] {
  return error.issues.flatMap((issue): RawIssue[] => {
    const path = issue.path as (string | number)[]
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key], message: `unknown field "${key}"` }))
    }
    if (issue.code === 'invalid_union' && path.at(-1) === 'op') {
      return [{ path, message: `unknown op; expected one of ${opsList()}` }]
    }
    // zod says "expected string, received undefined"; a plan author left a field out.
    if (issue.code === 'invalid_type' && /received undefined$/.test(issue.message)) {
      const key = path.at(-1)
      const expected = issue.expected === 'nonoptional' ? '' : ` (a ${issue.expected})`
      const field = typeof key === 'string' ? `"${key}"` : 'a value'
      return [{ path, message: `${field} is missing${expected}` }]
    }
    return [{ path, message: issue.message }]
  })
}

function opsList(): string {
  return STEP_OPS.join(', ')
}

function dedupe(issues: PlanIssue[]): PlanIssue[] {
  const seen = new Set<string>()
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function sortIssues(issues: PlanIssue[]): PlanIssue[] {
  return [...issues].sort(
    (a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0),
  )
}

// Orders by step index (numbers); fields of one step keep the order they were found in.
function comparePaths(a: (string | number)[], b: (string | number)[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const left = a[index]
    const right = b[index]
    if (typeof left === 'number' && typeof right === 'number' && left !== right) return left - right
    if (left !== right) return 0
  }
  return 0
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message
}

// Where the first alias is, so the author sees where the expansion starts.
function firstAlias(
  document: Document,
  lineCounter: LineCounter,
): { line?: number; column?: number } {
  let offset: number | undefined
  visit(document, {
    Alias(_, node) {
      if (isAlias(node) && node.range) offset = node.range[0]
      return visit.BREAK
    },
  })
  if (offset === undefined) return {}
  const { line, col } = lineCounter.linePos(offset)
  return { line, column: col }
}

function positionAt(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (
    let index = text.indexOf('\n');
    index !== -1 && index < offset;
    index = text.indexOf('\n', index + 1)
  ) {
    line += 1
    lineStart = index + 1
  }
  return { line, column: offset - lineStart + 1 }
}
