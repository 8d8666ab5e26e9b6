/**
 * A random, collision-safe id with a readable prefix.
 *
 * @example
 * newId('corr') // 'corr_4f0c…'
 */
export function newId(prefix: string): string {
  return `${prefix}_${globalThis.crypto.randomUUID()}`
}
