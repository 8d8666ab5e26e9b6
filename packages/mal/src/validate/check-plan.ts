import { BatonError, formatPath } from '@baton/core'
import { conditionReferences, parseCondition } from '../condition'
import { findReferences, type TemplateReference } from '../template'
import { loopRunsOnce } from './loop-runs-once'
import { collectSaved, ifReason } from './saved-names'
import { parseStepBudget, stepBudgetIssues } from './step-budget-issues'

export type RawIssue = { path: (string | number)[]; message: string }

export type CheckPlanOptions = {
  /** Require a reachable `stop` step (outside fanout branches) that gives the run its output. */
  requireOutput?: boolean
}

type Path = (string | number)[]
/**
 * What a block of steps knows while it is walked: `visible` names may have a value (some
 * path saved them), `definite` names have one on every path that reaches this point, and
 * `uncertain` says for a visible-but-not-definite name which step left it unsaved.
 */
type Block = {
  visible: Set<string>
  defined: Set<string>
  definite: Set<string>
  uncertain: Map<string, string>
  inFanout: boolean
}
export type Walked = { saved: Set<string>; stops: boolean; ends: boolean }

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined

/**
 * The checks a schema cannot express: template references in scope, unique `saveAs`,
 * well-formed conditions, step budgets within the plan's, `ask_user` outside fanouts and
 * (optionally) a reachable `stop`. It reads the raw plan defensively, so it can run even
 * when the schema failed and report every problem at once.
 *
 * @example
 * checkPlan({ steps: [{ op: 'stop', output: '{{missing}}' }] })
 * // [{ path: ['steps', 0, 'output'], message: '{{missing}} names "missing", which is neither ...' }]
 */
export function checkPlan(raw: unknown, options: CheckPlanOptions = {}): RawIssue[] {
  const issues: RawIssue[] = []
  const plan = record(raw)
  if (!plan) return issues
  const inputs = new Set(Object.keys(record(plan.inputs) ?? {}))
  const planBudget = parseStepBudget(plan.budget)
  const report = (path: Path, message: string) => issues.push({ path, message })

  // A template needs its value (a missing one fails the step with TEMPLATE_UNRESOLVED); a
  // condition reads a missing value as null, so it only needs the name to exist somewhere.
  const checkReference = (
    reference: TemplateReference,
    path: Path,
    visible: Set<string>,
    block?: Block,
  ) => {
    const shown = `{{${reference.source}}}`
    if (reference.root === 'inputs' && !visible.has('inputs')) {
      const [name] = reference.path
      if (name === undefined) return
      if (typeof name !== 'string' || !inputs.has(name)) {
        report(
          path,
          `${shown} reads input "${String(name)}", which the plan's inputs do not declare`,
        )
      }
      return
    }
    if (!visible.has(reference.root) && !inputs.has(reference.root)) {
      report(
        path,
        `${shown} names "${reference.root}", which is neither an input nor a value saved by an earlier step in scope`,
      )
    } else if (block && !inputs.has(reference.root) && !block.definite.has(reference.root)) {
      const why = block.uncertain.get(reference.root) ?? 'not every path before it saves it'
      report(
        path,
        `${shown} reads "${reference.root}", which may have no value here: ${why}, and a template with no value fails the run (TEMPLATE_UNRESOLVED); save "${reference.root}" on every path before this step`,
      )
    }
  }

  const checkTemplates = (value: unknown, path: Path, block: Block) => {
    if (typeof value === 'string') {
      try {
        for (const reference of findReferences(value)) {
          checkReference(reference, path, block.visible, block)
        }
      } catch (error) {
        report(path, messageOf(error))
      }
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        checkTemplates(item, [...path, index], block)
      })
    } else if (record(value)) {
      for (const [key, item] of Object.entries(value as object)) {
        checkTemplates(item, [...path, key], block)
      }
    }
  }

  const checkCondition = (value: unknown, path: Path, visible: Set<string>) => {
    if (typeof value !== 'string') return
    try {
      for (const reference of conditionReferences(parseCondition(value))) {
        checkReference(reference, path, visible)
      }
    } catch (error) {
      report(path, messageOf(error))
    }
  }

  const checkBudget = (value: unknown, path: Path) => {
    for (const issue of stepBudgetIssues(value, path, planBudget)) issues.push(issue)
  }

  const define = (name: unknown, path: Path, block: Block) => {
    if (typeof name !== 'string') return
    if (name === 'inputs') report(path, '"inputs" is reserved for the plan inputs')
    else if (inputs.has(name)) report(path, `"${name}" is already the name of an input`)
    else if (block.defined.has(name)) report(path, `duplicate saveAs "${name}"`)
    block.defined.add(name)
    block.visible.add(name)
    block.definite.add(name)
  }

  // A nested block sees what its parent saw; `defined` (for duplicate names) stays shared.
  const enter = (block: Block, inFanout = block.inFanout): Block => ({
    visible: new Set(block.visible),
    defined: block.defined,
    definite: new Set(block.definite),
    uncertain: new Map(block.uncertain),
    inFanout,
  })

  /** Walks a block; returns the names it saved (visible after it) and whether it can stop the run. */
  const walk = (steps: unknown, path: Path, block: Block): Walked => {
    const saved = new Set<string>()
    let stops = false
    let reachable = true
    // Every path through the block so far has reached a stop (nothing after it runs).
    let ends = false
    if (!Array.isArray(steps)) return { saved, stops, ends: false }
    steps.forEach((item, index) => {
      const step = record(item)
      const at: Path = [...path, index]
      if (!step) return
      for (const field of [
        'prompt',
        'system',
        'question',
        'instruction',
        'persona',
        'agentWallet',
      ]) {
        if (field in step) checkTemplates(step[field], [...at, field], block)
      }
      if ('budget' in step) checkBudget(step.budget, [...at, 'budget'])
      switch (step.op) {
        case 'stop':
          checkTemplates(step.output, [...at, 'output'], block)
          if (reachable && !block.inFanout) stops = true
          reachable = false
          ends = true
          break
        case 'tool':
          checkTemplates(step.args, [...at, 'args'], block)
          break
        case 'search_agents':
        case 'search_tools':
        case 'search_models':
          for (const field of ['query', 'capability', 'type', 'provider']) {
            if (field in step) checkTemplates(step[field], [...at, field], block)
          }
          break
        case 'scratch':
        case 'conclave':
          checkTemplates(step.key, [...at, 'key'], block)
          checkTemplates(step.value, [...at, 'value'], block)
          break
        case 'synthesize':
          if (Array.isArray(step.from)) {
            step.from.forEach((name, fromIndex) => {
              if (typeof name === 'string' && !block.visible.has(name) && !inputs.has(name)) {
                report(
                  [...at, 'from', fromIndex],
                  `"${name}" is neither an input nor a value saved by an earlier step in scope`,
                )
              }
            })
          }
          break
        case 'ask_user':
          if (block.inFanout) {
            report(
              [...at, 'op'],
              'ask_user cannot run inside a fanout branch (a run pauses as a whole)',
            )
          }
          break
        case 'fanout': {
          const branches = Array.isArray(step.branches) ? step.branches : []
          branches.forEach((branch, branchIndex) => {
            const inner = enter(block, true)
            walk(record(branch)?.steps, [...at, 'branches', branchIndex, 'steps'], inner)
          })
          break
        }
        case 'if': {
          checkCondition(step.cond, [...at, 'cond'], block.visible)
          const before = new Set(block.defined)
          const thenBlock = { ...enter(block), defined: new Set(before) }
          const elseBlock = { ...enter(block), defined: new Set(before) }
          const thenResult = walk(step.then, [...at, 'then'], thenBlock)
          const elseResult = walk(step.else, [...at, 'else'], elseBlock)
          // then and else never both run, so each may save the same name; after the `if`
          // both sets are visible, and definite where every branch that goes on saved it.
          for (const name of [...thenBlock.defined, ...elseBlock.defined]) block.defined.add(name)
          for (const name of [...thenResult.saved, ...elseResult.saved]) {
            block.visible.add(name)
            saved.add(name)
          }
          const goesOn = [
            ...(thenResult.ends ? [] : [thenBlock]),
            ...(elseResult.ends ? [] : [elseBlock]),
          ]
          for (const name of block.visible) {
            if (block.definite.has(name)) continue
            const missing = goesOn.filter((branch) => !branch.definite.has(name))
            if (missing.length === 0) {
              block.definite.add(name)
              block.uncertain.delete(name)
            } else if (thenResult.saved.has(name) || elseResult.saved.has(name)) {
              block.uncertain.set(name, ifReason(name, at, { thenResult, elseResult }))
            }
          }
          if (goesOn.length === 0) ends = true
          if (reachable && (thenResult.stops || elseResult.stops)) stops = true
          break
        }
        case 'loop': {
          const bodyNames = collectSaved(step.do)
          checkCondition(step.while, [...at, 'while'], new Set([...block.visible, ...bodyNames]))
          const unset = new Set([...bodyNames].filter((name) => !block.visible.has(name)))
          const runsOnce = loopRunsOnce(step, unset)
          const body = enter(block)
          const result = walk(step.do, [...at, 'do'], body)
          for (const name of result.saved) {
            block.visible.add(name)
            saved.add(name)
            if (block.definite.has(name)) continue
            if (runsOnce && body.definite.has(name)) {
              block.definite.add(name)
              block.uncertain.delete(name)
            } else {
              const where = formatPath(at)
              block.uncertain.set(
                name,
                runsOnce
                  ? `the loop at ${where} does not save it on every path through its body`
                  : `it is saved in the loop at ${where}, which may run zero times (its while can be false at the first check)`,
              )
            }
          }
          if (runsOnce && result.ends) ends = true
          if (reachable && result.stops) stops = true
          break
        }
      }
      if ('saveAs' in step && step.saveAs !== undefined) {
        define(step.saveAs, [...at, 'saveAs'], block)
        if (typeof step.saveAs === 'string') saved.add(step.saveAs)
      }
    })
    return { saved, stops, ends }
  }

  const top: Block = {
    visible: new Set(),
    defined: new Set(),
    definite: new Set(),
    uncertain: new Map(),
    inFanout: false,
  }
  const result = walk(plan.steps, ['steps'], top)
  if (options.requireOutput && !result.stops) {
    report(['steps'], 'the plan has no reachable stop step, so it gives no output (requireOutput)')
  }
  return issues
}

function messageOf(error: unknown): string {
  if (BatonError.isInstance(error)) return error.shortMessage
  return error instanceof Error ? error.message : String(error)
}
