import { type Document, isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from 'yaml'

export type SourcePosition = { line: number; column: number }

/**
 * Maps a path in a parsed YAML/JSON document to the line and column where it is written.
 * A path that does not exist (a missing field) maps to its closest written ancestor.
 *
 * @example
 * const lineCounter = new LineCounter()
 * const document = parseDocument(text, { lineCounter })
 * locatePath({ document, lineCounter }, ['steps', 0, 'agentWallet']) // { line: 5, column: 18 }
 */
export function locatePath(
  source: { document: Document; lineCounter: LineCounter },
  path: readonly PropertyKey[],
): SourcePosition | undefined {
  let node: unknown = source.document.contents
  let best: { range?: [number, number, number] | null } | undefined = node as Node
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(key),
      )
      if (!pair) break
      const value = pair.value as Node | null
      // An empty value (`agentWallet:`) has no range of its own; point at the key then.
      best = value?.range ? value : (pair.key as Node)
      node = value
    } else if (isSeq(node) && typeof key === 'number') {
      const item = node.items[key] as Node | undefined
      if (!item) break
      best = item
      node = item
    } else {
      break
    }
  }
  const offset = best?.range?.[0]
  if (offset === undefined) return undefined
  const { line, col } = source.lineCounter.linePos(offset)
  return { line, column: col }
}
