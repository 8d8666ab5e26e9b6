import type { Diagnostic } from '@codemirror/lint'
import type { Text } from '@codemirror/state'
import type { PlanCheck } from '../api/client'
import { checkPlanSyntax, type PlanIssue, planDiagnostics } from './plan-diagnostics'

/** Asks the server to check a plan's text (`serverApi.validatePlan`). */
export type ValidatePlan = (source: string, signal: AbortSignal) => Promise<PlanCheck>

export type PlanLinterOptions = {
  validate: ValidatePlan
  /** Issues known from elsewhere (a refused run), shown beside the checked ones. */
  extraIssues?: () => readonly PlanIssue[]
}

/**
 * The editor's lint source: the local YAML checks, and the server's whole check of the text
 * (`POST /api/v1/plans/validate`), each issue at its line. A new check aborts the one still
 * in flight; a check that fails (the server is down) leaves the local marks only.
 *
 * @example
 * const lint = createPlanLinter({ validate: serverApi.validatePlan })
 * const markers = await lint(view.state.doc)
 */
export function createPlanLinter(options: PlanLinterOptions): (doc: Text) => Promise<Diagnostic[]> {
  let inFlight: AbortController | undefined
  return async (doc) => {
    inFlight?.abort()
    const controller = new AbortController()
    inFlight = controller
    const source = doc.toString()
    let checked: PlanIssue[] = []
    try {
      const answer = await options.validate(source, controller.signal)
      if (!answer.ok) checked = answer.issues.map(fromServer)
    } catch {
      // Superseded or unreachable: marks from an older answer would be stale, so none.
    } finally {
      if (inFlight === controller) inFlight = undefined
    }
    const issues = [...checkPlanSyntax(source), ...checked, ...(options.extraIssues?.() ?? [])]
    return planDiagnostics(doc, dedupe(issues))
  }
}

function fromServer(issue: Extract<PlanCheck, { ok: false }>['issues'][number]): PlanIssue {
  return {
    message: issue.message,
    ...(issue.path ? { path: issue.path } : {}),
    ...(issue.line === null ? {} : { line: issue.line }),
    ...(issue.column === null ? {} : { column: issue.column }),
  }
}

// The parser's YAML errors come back from the server too, and a refused run repeats the check.
function dedupe(issues: PlanIssue[]): PlanIssue[] {
  const seen = new Set<string>()
  return issues.filter((issue) => {
    const key = `${issue.line}:${issue.column}:${issue.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
