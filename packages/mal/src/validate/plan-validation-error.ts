import { BatonError } from '@baton/core'

/** One problem in a plan: where it is (a path, and a line/column when parsed from text) and what is wrong. */
export type PlanIssue = { path: string; line?: number; column?: number; message: string }

/** A plan that failed validation; `issues` lists every problem found, not just the first. */
export class PlanValidationError extends BatonError {
  override name = 'PlanValidationError'
  readonly issues: PlanIssue[]
  constructor(issues: PlanIssue[], options: { source?: string } = {}) {
    const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`
    super('PLAN_INVALID', `The plan${options.source ? ` ${options.source}` : ''} has ${count}.`, {
      details: { issues },
      metaMessages: issues.map((issue) => formatIssue(issue, options.source)),
    })
    this.issues = issues
  }
}

/**
 * Formats an issue as `file:line:column path: message` (the parts that are known).
 *
 * @example
 * formatIssue({ path: 'steps[0].agentWallet', line: 3, column: 5, message: 'bad' }, 'plan.yaml')
 * // 'plan.yaml:3:5 steps[0].agentWallet: bad'
 */
export function formatIssue(issue: PlanIssue, source?: string): string {
  const position =
    issue.line === undefined
      ? ''
      : `${issue.line}${issue.column === undefined ? '' : `:${issue.column}`}`
  const where = [source, position].filter(Boolean).join(':')
  const path = issue.path || '(plan)'
  return `${where ? `${where} ` : ''}${path}: ${issue.message}`
}
