import { type DocBlock, RUN_LANGUAGES } from './extract-doc-blocks'

/** A block made ready to run: one module's source and where each of its lines came from. */
export type PreparedBlock = {
  source: string
  /** For each line of `source` (0-based), the Markdown line it came from (`docs/x.md:12`). */
  origins: (string | undefined)[]
}

export class DocSetupError extends Error {
  override name = 'DocSetupError'
}

const IMPORT = /^import\s+(?:([\s\S]*?)\s+from\s+)?(['"])([^'"\n]+)\2;?[ \t]*$/gm
const CHECK = /^(\s*)(.*?)\s*\/\/ → (.*)$/

/**
 * Puts a block's setups before it (each once, in order), merges their imports into one
 * statement per module, points the documented server address at the server under test, and
 * turns each `// → expected` comment into a check of what the line prints or gives:
 *
 *   console.log(x)          // → 42            prints "42"
 *   budget.limits           // → { calls: 5 }  the value, as util.inspect shows it
 *   const y = f()           // → 'a'           the value given to y
 *   budget.child({ c: 9 })  // → throws BudgetExceededError: Budget …   (… matches anything)
 *
 * A setup that is a yaml (or any text) block becomes a string constant named after it.
 * @example
 * prepareDocBlock(block, blocksOfTheSameFile, { serverUrl: 'http://127.0.0.1:40123' })
 */
export function prepareDocBlock(
  block: DocBlock,
  fileBlocks: readonly DocBlock[],
  options: { serverUrl?: string } = {},
): PreparedBlock {
  const parts = [...setupsOf(block, fileBlocks), block]
  const imports = new Map<string, Set<string>>()
  const whole = new Set<string>()
  const bodyLines: string[] = []
  const bodyOrigins: (string | undefined)[] = []
  for (const part of parts) {
    if (part !== block && !RUN_LANGUAGES.has(part.lang)) {
      // A named yaml (or other text) block is its text, as a string constant of that name.
      bodyLines.push(`const ${part.name} = ${JSON.stringify(`${part.code}\n`)}`)
      bodyOrigins.push(`${part.file}:${part.line}`)
      continue
    }
    const withoutImports = part.code.replace(IMPORT, (statement, clause, _quote, module) => {
      collectImport(imports, whole, statement, clause, module)
      return statement.replace(/[^\n]/g, '')
    })
    withoutImports.split('\n').forEach((text, index) => {
      const origin = `${part.file}:${part.line + 1 + index}`
      bodyLines.push(rewriteCheck(pointAtServer(text, options.serverUrl), origin))
      bodyOrigins.push(origin)
    })
    // Each part ends its statements, whatever its last line lacked.
    bodyLines.push(';')
    bodyOrigins.push(undefined)
  }
  const head = [...whole]
  for (const [module, names] of imports) {
    head.push(`import { ${[...names].join(', ')} } from '${module}'`)
  }
  return {
    source: [...head, ...bodyLines].join('\n'),
    origins: [...head.map(() => undefined), ...bodyOrigins],
  }
}

function setupsOf(block: DocBlock, fileBlocks: readonly DocBlock[]): DocBlock[] {
  const ordered: DocBlock[] = []
  const visit = (names: readonly string[], from: DocBlock, trail: string[]) => {
    for (const name of names) {
      if (trail.includes(name)) {
        throw new DocSetupError(
          `${from.file}:${from.line}: setup "${name}" needs itself (${[...trail, name].join(' → ')})`,
        )
      }
      const setup = fileBlocks.find((candidate) => candidate.name === name)
      if (!setup) {
        throw new DocSetupError(
          `${from.file}:${from.line}: setup "${name}" is no block of this file marked name=${name} (or a hidden setup-block)`,
        )
      }
      visit(setup.setups, setup, [...trail, name])
      if (!ordered.includes(setup)) ordered.push(setup)
    }
  }
  visit(block.setups, block, [])
  return ordered
}

function collectImport(
  imports: Map<string, Set<string>>,
  whole: Set<string>,
  statement: string,
  clause: string | undefined,
  module: string,
): void {
  const named = clause === undefined ? undefined : /^\{([\s\S]*)\}$/.exec(clause.trim())
  if (!named) {
    whole.add(statement.replace(/\s+/g, ' ').trim())
    return
  }
  const names = imports.get(module) ?? new Set<string>()
  for (const name of (named[1] ?? '').split(',')) {
    const trimmed = name.replace(/\s+/g, ' ').trim()
    if (trimmed) names.add(trimmed)
  }
  imports.set(module, names)
}

function pointAtServer(text: string, serverUrl: string | undefined): string {
  if (!serverUrl) return text
  return text
    .replaceAll('http://127.0.0.1:8787', serverUrl)
    .replaceAll('http://localhost:8787', serverUrl)
}

function rewriteCheck(text: string, origin: string): string {
  const match = CHECK.exec(text)
  if (!match) return text
  const [, indent = '', code = '', expected = ''] = match
  // An arrow inside a list or a call (`'a', // → b`) is prose, not a statement to check.
  if (/[,([{]$/.test(code.trim()) || code.trim() === '') return text
  const at = JSON.stringify(origin)
  const want = JSON.stringify(expected.trim())
  const thrown = /^throws\s+(.*)$/.exec(expected.trim())
  if (thrown) {
    const body = code.replace(/;$/, '')
    return `${indent}await __docThrows(${at}, ${JSON.stringify(thrown[1])}, async () => { ${body} })`
  }
  if (code.startsWith('console.log(')) {
    return `${indent}__docLog(${at}, ${want}, ${code.slice('console.log('.length)}`
  }
  const declaration = /^((?:const|let|var)\s+[\w$]+(?:\s*:\s*[^=]+)?\s*=\s*)(.*?);?$/.exec(code)
  if (declaration) {
    return `${indent}${declaration[1]}__docValue(${at}, ${want}, ${declaration[2]})`
  }
  return `${indent}__docValue(${at}, ${want}, (${code.replace(/;$/, '')}))`
}
