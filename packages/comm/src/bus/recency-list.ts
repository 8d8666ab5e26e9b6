/** What a `RecencyList` links: any object with these two fields. */
export type RecencyNode<Node> = { newer: Node | undefined; older: Node | undefined }

/**
 * Items in order of last use, with O(1) touch, removal and look at the oldest. A Map kept in
 * recency order (delete + set) does the same, but every delete leaves a hole its iterator
 * skips, so looking at the oldest of a long-running Map gets slower with what went before.
 *
 * @example
 * const list = new RecencyList<Chain>()
 * list.touch(chain) // now the newest
 * list.oldest // the least recently touched
 */
export class RecencyList<Node extends RecencyNode<Node>> {
  #oldest: Node | undefined
  #newest: Node | undefined

  get oldest(): Node | undefined {
    return this.#oldest
  }

  get newest(): Node | undefined {
    return this.#newest
  }

  /** Makes `node` the newest, adding it when it is not in the list. */
  touch(node: Node): void {
    if (this.#newest === node) return
    if (node.newer || node.older || this.#oldest === node) this.remove(node)
    node.older = this.#newest
    node.newer = undefined
    if (this.#newest) this.#newest.newer = node
    this.#newest = node
    this.#oldest ??= node
  }

  remove(node: Node): void {
    if (node.older) node.older.newer = node.newer
    else if (this.#oldest === node) this.#oldest = node.newer
    if (node.newer) node.newer.older = node.older
    else if (this.#newest === node) this.#newest = node.older
    node.newer = undefined
    node.older = undefined
  }

  clear(): void {
    this.#oldest = undefined
    this.#newest = undefined
  }
}
