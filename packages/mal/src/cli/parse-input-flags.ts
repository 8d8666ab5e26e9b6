import type { InputSpec } from '../plan'
import { CliUsageError } from './cli-errors'

/**
 * Turns `--input name=value` flags into run inputs. Values of inputs declared as anything
 * but `string` are read as JSON (`--input count=3`, `--input tags='["a"]'`).
 *
 * @example
 * parseInputFlags(['request=ship it', 'count=3'], { request: { type: 'string' }, count: { type: 'number' } })
 * // { request: 'ship it', count: 3 }
 */
export function parseInputFlags(
  flags: readonly string[],
  specs: Record<string, InputSpec>,
): Record<string, unknown> {
  const inputs: Record<string, unknown> = {}
  for (const flag of flags) {
    const equals = flag.indexOf('=')
    if (equals < 1) throw new CliUsageError(`--input "${flag}" must look like name=value.`)
    const name = flag.slice(0, equals)
    const text = flag.slice(equals + 1)
    const type = specs[name]?.type ?? 'string'
    if (type === 'string') {
      inputs[name] = text
      continue
    }
    try {
      inputs[name] = JSON.parse(text)
    } catch {
      // `any` inputs that are not JSON are plain text; typed ones must parse.
      if (type !== 'any')
        throw new CliUsageError(`--input ${name} must be JSON (a ${type}), got "${text}".`)
      inputs[name] = text
    }
  }
  return inputs
}
