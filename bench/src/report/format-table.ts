import type { Subject } from '../cases'
import { formatNumber } from './format-number'
import type { Outcome, Row } from './types'

const COLUMNS: { subject: Subject; title: string; short: string }[] = [
  { subject: 'bare', title: 'bare limit', short: 'bare' },
  { subject: 'langgraph', title: 'LangGraph.js', short: 'LangGraph' },
  { subject: 'agents', title: 'OpenAI Agents JS', short: 'Agents' },
]

function cell(outcome: Outcome | undefined): string {
  if (!outcome) return '—'
  if (!outcome.ok) return `error: ${outcome.error.replace(/\|/g, '/').slice(0, 160)}`
  const { figure } = outcome
  if (figure.text) return figure.text
  const value = formatNumber(figure.value)
  return figure.memoryMiB === undefined ? value : `${value} / ${formatNumber(figure.memoryMiB)} MiB`
}

function batonCell(row: Row): string {
  const ratios = COLUMNS.filter(({ subject }) => row.ratios[subject] !== undefined).map(
    ({ subject, short }) => `×${formatNumber(row.ratios[subject]!)} ${short}`,
  )
  const own = cell(row.outcomes.baton)
  return ratios.length > 0 ? `${own} (${ratios.join(', ')})` : own
}

/**
 * The results as a Markdown table (work | bare limit | LangGraph.js | OpenAI Agents JS | Baton |
 * target | met?), ready to print or paste into docs/performance.md.
 *
 * @example
 * console.log(formatTable(rows))
 */
export function formatTable(rows: Row[]): string {
  const lines = [
    '| work | bare limit | LangGraph.js | OpenAI Agents JS | Baton | target | met? |',
    '|---|---|---|---|---|---|---|',
  ]
  for (const row of rows) {
    const met = row.met === undefined ? '—' : row.met ? 'yes' : 'no'
    const cells = [
      row.work,
      ...COLUMNS.map(({ subject }) => cell(row.outcomes[subject])),
      batonCell(row),
      row.target,
      met,
    ]
    lines.push(`| ${cells.join(' | ')} |`)
  }
  lines.push(
    '',
    "×N after Baton's figure: Baton's cost per unit of work ÷ that column's (time per operation, or the inverse of a rate); below 1, Baton is cheaper.",
  )
  return lines.join('\n')
}
