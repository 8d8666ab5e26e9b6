import type { Subagent } from './subagent'
import {
  type ChangeListener,
  listenForChanges,
  type SupervisorNodeState,
  stopListening,
} from './supervisor-state'

/**
 * One `waitAgents` call: told of every change of its supervisor until none of its targets
 * runs (`true`), the supervisor is paused (`false`) or `timeoutMs` passes (`true`). One object
 * per wait, kept by every sub-agent that waits for its own in a deep tree, instead of the
 * closures, contexts and sets it replaced (~0.5 KB per waiting level).
 *
 * @example
 * const settled = await Waiter.wait(node, [subagent], undefined)
 */
export class Waiter implements ChangeListener {
  readonly #node: SupervisorNodeState
  /** The one target, when there is one (a model's usual wait): looked at, nothing kept. */
  readonly #target: Subagent | undefined
  /** Several targets: those still running, counted down as they end, so a change costs O(1). */
  readonly #running: Set<Subagent> | undefined
  readonly #wanted: Set<Subagent> | undefined
  readonly #resolve: (settled: boolean) => void
  #timer: ReturnType<typeof setTimeout> | undefined

  static wait(
    node: SupervisorNodeState,
    targets: Subagent[],
    timeoutMs: number | undefined,
  ): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter = new Waiter(node, targets, resolve)
      listenForChanges(node, waiter)
      if (timeoutMs !== undefined) waiter.#timer = setTimeout(() => waiter.#finish(true), timeoutMs)
      waiter.changed()
    })
  }

  private constructor(
    node: SupervisorNodeState,
    targets: Subagent[],
    resolve: (settled: boolean) => void,
  ) {
    this.#node = node
    this.#resolve = resolve
    if (targets.length === 1) {
      this.#target = targets[0]
    } else {
      this.#wanted = new Set(targets)
      this.#running = new Set(targets.filter((subagent) => subagent.status === 'running'))
    }
  }

  changed(changed?: Subagent): void {
    if (this.#node.paused) this.#finish(false)
    else if (!this.#anyRunning(changed)) this.#finish(true)
  }

  #anyRunning(changed: Subagent | undefined): boolean {
    const running = this.#running
    if (!running) return this.#target?.status === 'running'
    if (changed === undefined) {
      for (const subagent of running) if (subagent.status !== 'running') running.delete(subagent)
    } else if (changed.status !== 'running') running.delete(changed)
    else if (this.#wanted?.has(changed)) running.add(changed)
    return running.size > 0
  }

  #finish(settled: boolean): void {
    clearTimeout(this.#timer)
    stopListening(this.#node, this)
    this.#resolve(settled)
  }
}
