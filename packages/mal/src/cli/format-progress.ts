import type { RunEvent, RunUsage } from '../run'

const CONTAINERS = new Set(['fanout', 'if', 'loop'])

export type ProgressFormatter = {
  /** The line to show for an event (or `undefined` for none). */
  format(event: RunEvent): string | undefined
  /** Spend so far, from the steps that did the work. */
  total(): RunUsage
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
  return {
    total: () => ({ ...total }),
    format(event) {
      switch (event.type) {
        case 'run-start':
          return `▶ ${event.resumed ? 'resuming' : 'running'} ${event.plan ?? 'plan'} (run ${event.runId})`
        case 'step-start':
          return `${indent(event.path)}→ ${label(event)}${event.wallet ? ` · ${event.wallet}` : ''}`
        case 'step-finish':
          count(event)
          return `${indent(event.path)}✓ ${label(event)} · ${usageText(event.usage)} · ${event.wallet} · ${event.durationMs} ms · total ${money(total.costUsd)}`
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
      }
    },
  }
}

function usageText(usage: RunUsage): string {
  const calls = `${usage.calls} call${usage.calls === 1 ? '' : 's'}`
  return `${calls} · ${usage.tokens} tokens · ${money(usage.costUsd)}`
}

function money(value: number): string {
  return `$${Number(value.toFixed(6))}`
}
