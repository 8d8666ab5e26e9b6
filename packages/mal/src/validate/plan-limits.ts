import type { RawIssue } from './check-plan'

/** How large a plan may be: checked before anything else reads it, so no plan can exhaust the validator. */
export type PlanLimits = {
  /** Characters of YAML or JSON text (default 1 000 000). */
  maxBytes: number
  /** Levels of nesting of objects and lists (default 128: about 60 nested `if`s or loops). */
  maxDepth: number
  /** Steps in all, nested ones included (default 10 000). */
  maxSteps: number
  /** YAML alias expansions (default 100). */
  maxAliases: number
  /**
   * Steps a run of the plan may execute at worst (nested `maxIters` multiplied, every fanout
   * branch, the larger branch of an `if`; default 50 000, the run-wide cap `runPlan` enforces).
   */
  maxRunSteps: number
}

/** How many steps a run may execute in all, nested ones and earlier attempts' included. */
export const DEFAULT_MAX_RUN_STEPS = 50_000

export const DEFAULT_PLAN_LIMITS: PlanLimits = {
  maxBytes: 1_000_000,
  maxDepth: 128,
  maxSteps: 10_000,
  maxAliases: 100,
  maxRunSteps: DEFAULT_MAX_RUN_STEPS,
}

/**
 * The first limit a parsed plan goes past (nesting depth or step count), with the path where
 * it does. It walks the value without recursion, so a plan nested thousands deep is measured,
 * not overflowed.
 *
 * @example
 * checkPlanLimits(raw, DEFAULT_PLAN_LIMITS) // [] or [{ path: ['steps', 0, 'then', 0, ...], message: '...' }]
 */
export function checkPlanLimits(raw: unknown, limits: PlanLimits): RawIssue[] {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: raw, path: [] }]
  const seen = new WeakSet<object>()
  let steps = 0
  while (stack.length > 0) {
    const { value, path } = stack.pop()!
    if (value === null || typeof value !== 'object') continue
    if (seen.has(value)) return [{ path, message: 'a plan cannot contain itself (a cycle)' }]
    seen.add(value)
    if (path.length >= limits.maxDepth) {
      return [{ path, message: `nested deeper than ${limits.maxDepth} levels (limit maxDepth)` }]
    }
    if (!Array.isArray(value) && typeof (value as { op?: unknown }).op === 'string') {
      steps += 1
      if (steps > limits.maxSteps) {
        return [{ path, message: `more than ${limits.maxSteps} steps (limit maxSteps)` }]
      }
    }
    const entries = Array.isArray(value)
      ? value.map((item, index) => [index, item] as const)
      : Object.entries(value)
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, item] = entries[index]!
      if (item !== null && typeof item === 'object')
        stack.push({ value: item, path: [...path, key] })
    }
  }
  return []
}

/**
 * How deeply YAML or JSON text nests (flow brackets and block indentation), measured on the
 * text before the YAML parser reads it: a parser recurses per level, so depth is checked first.
 * Returns the offset where the text first goes past `maxDepth`, if it does.
 *
 * @example
 * textTooDeep('{"a":[[[1]]]}', 2) // 5
 */
export function textTooDeep(text: string, maxDepth: number): number | undefined {
  let depth = 0
  let quote: string | undefined
  let lineStart = true
  let indent = 0
  for (let offset = 0; offset < text.length; offset++) {
    const character = text[offset]!
    if (character === '\n') {
      lineStart = true
      indent = 0
      continue
    }
    if (lineStart) {
      if (character === ' ' || character === '-') {
        indent += 1
        continue
      }
      lineStart = false
      // Block nesting: every two columns of indentation (or list dashes) can open a level.
      if (indent / 2 + depth > maxDepth) return offset
    }
    if (quote) {
      if (character === '\\' && quote === '"') offset += 1
      else if (character === quote) quote = undefined
      continue
    }
    if (character === '"' || character === "'") quote = character
    else if (character === '#') {
      while (offset + 1 < text.length && text[offset + 1] !== '\n') offset += 1
    } else if (character === '[' || character === '{') {
      depth += 1
      if (depth + indent / 2 > maxDepth) return offset
    } else if (character === ']' || character === '}') depth = Math.max(0, depth - 1)
  }
  return undefined
}
