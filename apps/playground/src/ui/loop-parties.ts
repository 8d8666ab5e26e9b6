/**
 * The parties of a held chain, each once, in the order they joined: a loop of two agents
 * passing work back and forth reads as its two names, not as every hop.
 *
 * @example
 * loopParties(['ops-desk', 'relay-desk', 'ops-desk', 'relay-desk']) // 'ops-desk → relay-desk'
 */
export function loopParties(path: readonly string[]): string {
  return [...new Set(path)].join(' → ')
}
