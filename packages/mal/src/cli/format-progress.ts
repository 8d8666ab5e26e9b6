import type { RunEvent, RunUsage } from '../run'

const CONTAINERS = new Set(['fanout', 'if', 'loop'])

export type ProgressFormatter = {
  /** The line to show for an event (or `undefined` for none). */
  format(event: RunEvent): string | undefined
  /** Spend so far, from the steps that did the work. */
  total(): RunUsage
  /**
   * The exact text to write for an event: its line, or for a `step-delta` the streamed text
   * as it comes (under a `│` margin), closed by a line break before the next event's line.
   */
  render(event: RunEvent): string
}

/**
 * Formats run events as one line each, with the spend of each step and of the run so far.
 *
 * @example
 * const progress = createProgressFormatter()
 * runPlan(plan, { ...options, onEvent: (event) => { const line = progress.format(event); if (line) console.error(line) } })
 */
export function createProgressFormatter(): ProgressFormatter {
  const total: RunUsage = { calls: 0, tokens: 0, costUsd: 0 }
  const depthOf = (path: string) => (path.match(/\./g) ?? []).length
  const indent = (path: string) => '  '.repeat(1 + depthOf(path))
  const label = (event: { path: string; op: string; saveAs?: string; iteration?: number }) =>
    `${event.path} ${event.op}${event.saveAs ? ` ${event.saveAs}` : ''}${event.iteration ? ` (iteration ${event.iteration})` : ''}`
  const count = (event: { op: string; usage: RunUsage }) => {
    // Containers report their children's spend again; count each call once.
    if (CONTAINERS.has(event.op)) return
    total.calls += event.usage.calls
    total.tokens += event.usage.tokens
    total.costUsd += event.usage.costUsd
  }
  // The path whose streamed text is on the current, unfinished line.
  let streaming: string | undefined
  const formatter: ProgressFormatter = {
    total: () => ({ ...total }),
    render(event) {
      if (event.type === 'step-delta') {
        const margin = `${indent(event.path)}  │ `
        const opening = streaming === event.path ? '' : `${streaming ? '\n' : ''}${margin}`
        streaming = event.path
        return opening + event.text.replace(/\r?\n/g, `\n${margin}`)
      }
      const line = formatter.format(event)
      const close = streaming ? '\n' : ''
      streaming = undefined
      return line === undefined ? close : `${close}${line}\n`
    },
    format(event) {
      switch (event.type) {
        case 'run-start':
          return `▶ ${event.resumed ? 'resuming' : 'running'} ${event.plan ?? 'plan'} (run ${event.runId})`
        case 'step-start':
          return `${indent(event.path)}→ ${label(event)}${event.wallet ? ` · ${event.wallet}` : ''}`
        case 'step-finish':
          count(event)
          return `${indent(event.path)}✓ ${label(event)} · ${usageText(event.usage)} · ${event.wallet} · ${event.durationMs} ms${event.firstTextMs === undefined ? '' : ` (first text ${event.firstTextMs} ms)`} · total ${money(total.costUsd)}`
        case 'step-error':
          count(event)
          return `${indent(event.path)}✗ ${label(event)} · ${event.code}: ${event.message}`
        case 'tool-result': {
          const where = event.server ? `${event.tool} on ${event.server}` : event.name
          return `${indent(event.path)}  ⚙ ${where} · ${event.durationMs} ms${event.error ? ` · ${event.error.code}: ${event.error.message}` : ''}`
        }
        case 'run-pause':
          return `? ${event.question}`
        case 'run-finish':
          return `■ ${event.status} · ${usageText(event.usage)}${event.error ? ` · ${event.error.code}: ${event.error.message}` : ''}`
        case 'step-delta':
          return undefined
      }
    },
  }
  return formatter
}

function usageText(usage: RunUsage): string {
  const calls = `${usage.calls} call${usage.calls === 1 ? '' : 's'}`
  return `${calls} · ${usage.tokens} tokens · ${money(usage.costUsd)}`
}

function money(value: number): string {
  return `$${Number(value.toFixed(6))}`
}
