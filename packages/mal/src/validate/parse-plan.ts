import { formatPath } from '@baton/core'
import { type Document, LineCounter, parseDocument } from 'yaml'
import type { z } from 'zod'
import { type Plan, PlanSchema } from '../plan'
import { type CheckPlanOptions, checkPlan, type RawIssue } from './check-plan'
import { type PlanIssue, PlanValidationError } from './plan-validation-error'
import { locatePath } from './source-map'
import { markValidated } from './validated-plans'

export type ParsePlanOptions = CheckPlanOptions & {
  /** Names the source in messages (e.g. the file name). */
  sourceName?: string
}

export type SafeParsePlanResult =
  | { success: true; plan: Plan }
  | { success: false; error: PlanValidationError }

/**
 * Validates a plan (YAML or JSON text, or an already-parsed object) before anything runs.
 * Every problem is reported at once, each with its path and, for text, its line and column.
 *
 * @example
 * const result = safeParsePlan('steps:\n  - op: stop\n    output: "{{nope}}"\n')
 * if (!result.success) console.log(result.error.issues[0]) // { path: 'steps[0].output', line: 3, column: 13, ... }
 */
export function safeParsePlan(
  source: string | object,
  options: ParsePlanOptions = {},
): SafeParsePlanResult {
  const fail = (issues: PlanIssue[]): SafeParsePlanResult => ({
    success: false,
    error: new PlanValidationError(sortIssues(dedupe(issues)), { source: options.sourceName }),
  })
  let raw: unknown = source
  let located: { document: Document; lineCounter: LineCounter } | undefined
  if (typeof source === 'string') {
    const lineCounter = new LineCounter()
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
    raw = document.toJS()
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
  const parsed = PlanSchema.safeParse(raw)
  const issues = placeAll([
    ...(parsed.success ? [] : zodIssues(parsed.error)),
    ...checkPlan(raw, options),
  ])
  if (issues.length > 0 || !parsed.success) return fail(issues)
  return { success: true, plan: markValidated(parsed.data) }
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
  return 'task, delegate, models_call, fanout, if, loop, tool, scratch, synthesize, ask_user, stop'
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
