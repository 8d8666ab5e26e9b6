/**
 * `record[key]` when `record` has `key` as its own: a name a model or a caller gives
 * (`constructor`, `toString`, `__proto__`) never finds what every object inherits.
 *
 * @example
 * ownEntry({ browser: provider }, 'constructor') // undefined
 */
export function ownEntry<Value>(
  record: Readonly<Record<string, Value>>,
  key: string,
): Value | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined
}
