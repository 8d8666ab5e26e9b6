import type { Diagnostic } from '@codemirror/lint'
import type { Text } from '@codemirror/state'
import { LineCounter, parseDocument } from 'yaml'

/** One problem in a plan, as the server (or the YAML parser) reports it. */
export type PlanIssue = { path?: string; line?: number; column?: number; message: string }

/**
 * Editor markers for plan issues: each one on its line (from its column to the line's end),
 * an issue without a line on the first line, lines past the end on the last; a mark that would
 * be empty (an empty line, a column past the end) covers the nearest line with text.
 *
 * @example
 * planDiagnostics(view.state.doc, [{ line: 3, column: 5, message: 'unknown op' }])
 */
export function planDiagnostics(doc: Text, issues: readonly PlanIssue[]): Diagnostic[] {
  return issues.map((issue) => {
    let line = doc.line(Math.min(Math.max(issue.line ?? 1, 1), doc.lines))
    // An error at the end of the text (an unclosed bracket) lands on an empty last line;
    // the line before it is the one to mark, so the mark can be seen.
    while (line.from === line.to && line.number > 1) line = doc.line(line.number - 1)
    const column = Math.max((issue.column ?? 1) - 1, 0)
    const start = Math.min(line.from + column, line.to)
    // A mark needs at least one character: past the end of the line, mark the whole line.
    const from = start < line.to ? start : line.from
    return {
      from,
      to: line.to,
      severity: 'error',
      message: issue.path ? `${issue.path}: ${issue.message}` : issue.message,
    }
  })
}

/**
 * What can be said about a plan without the server: YAML syntax errors at their line, and a
 * plan that is not an object with a `steps` list. Everything else is the server's to check.
 *
 * @example
 * checkPlanSyntax('steps: [') // [{ line: 1, column: 9, message: '…' }]
 */
export function checkPlanSyntax(source: string): PlanIssue[] {
  const lineCounter = new LineCounter()
  const document = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true })
  if (document.errors.length > 0) {
    return document.errors.map((error) => {
      const { line, col } = lineCounter.linePos(error.pos[0])
      return { line, column: col, message: error.message.split('\n')[0]! }
    })
  }
  const plan = document.toJS() as unknown
  if (plan === null || typeof plan !== 'object' || Array.isArray(plan))
    return [{ line: 1, column: 1, message: 'a plan must be an object with a steps list' }]
  if (!Array.isArray((plan as { steps?: unknown }).steps))
    return [{ line: 1, column: 1, path: 'steps', message: 'a plan needs a steps list' }]
  return []
}

/**
 * The issues a server refusal lists (`details.issues`, or `details.errors`), or none.
 *
 * @example
 * issuesFromRefusal(error) // [{ path: 'steps[0].op', line: 2, column: 9, message: '…' }]
 */
export function issuesFromRefusal(error: unknown): PlanIssue[] {
  const details = (error as { details?: Record<string, unknown> } | null)?.details
  const list = details?.issues ?? details?.errors
  if (!Array.isArray(list)) return []
  return list.filter(
    (issue): issue is PlanIssue => typeof (issue as PlanIssue | null)?.message === 'string',
  )
}
