/**
 * Finds the code blocks of a Markdown file and what its `doc-test` markers say about them.
 * The convention is described in CONTRIBUTING.md ("Documentation code blocks"):
 *
 *   <!-- doc-test skip: why this block cannot run -->      the block is not run
 *   <!-- doc-test name=budget setup=registry,server -->    run, usable as a setup, with setups first
 *   <!-- doc-test setup-block name=registry                 a setup the reader does not see
 *   ```ts
 *   …
 *   ```
 *   -->
 *
 * A marker is the last non-blank line before a block's opening fence.
 */

/** Languages whose blocks are run (unless marked skip). */
export const RUN_LANGUAGES = new Set(['ts', 'js', 'typescript', 'javascript', 'mts', 'mjs', 'tsx'])

export type DocBlock = {
  /** The Markdown file, relative to the repository root. */
  file: string
  /** The line of the opening fence (1-based). */
  line: number
  lang: string
  code: string
  /** Named by `name=` (a visible block) or a hidden `setup-block`. */
  name?: string
  /** Setups to put before this block, in order. */
  setups: string[]
  /** Why it is not run (`skip:`); undefined when it runs. */
  skip?: string
  /** A `setup-block` inside an HTML comment: only ever run as another block's setup. */
  hidden: boolean
}

export class DocMarkerError extends Error {
  override name = 'DocMarkerError'
}

const FENCE = /^\s*(`{3,}|~{3,})\s*([\w-]*)/
const MARKER = /^\s*<!--\s*doc-test\b(.*?)(-->)?\s*$/

/**
 * Reads every fenced block of a Markdown text with its marker.
 *
 * @example
 * extractDocBlocks('docs/x.md', '<!-- doc-test skip: a type -->\n```ts\ntype A = 1\n```\n')
 * // [{ file: 'docs/x.md', line: 2, lang: 'ts', code: 'type A = 1', skip: 'a type', setups: [], hidden: false }]
 */
export function extractDocBlocks(file: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n')
  const blocks: DocBlock[] = []
  let pending: { text: string; line: number } | undefined
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index] ?? ''
    const marker = MARKER.exec(text)
    if (marker) {
      const body = marker[1]?.trim() ?? ''
      if (!marker[2]) {
        // An open comment: a hidden setup block, which runs to a line holding `-->`.
        if (!body.startsWith('setup-block')) {
          throw new DocMarkerError(
            `${file}:${index + 1}: a doc-test marker must close on its line (-->), unless it is a setup-block`,
          )
        }
        const start = index
        const codeLines: string[] = []
        let lang = 'ts'
        for (index++; index < lines.length && !/^\s*-->\s*$/.test(lines[index] ?? ''); index++) {
          const fence = FENCE.exec(lines[index] ?? '')
          if (fence) {
            if (fence[2]) lang = fence[2]
            continue
          }
          codeLines.push(lines[index] ?? '')
        }
        const options = parseOptions(file, start + 1, body.slice('setup-block'.length))
        if (!options.name) {
          throw new DocMarkerError(`${file}:${start + 1}: a setup-block needs name=<name>`)
        }
        blocks.push({
          file,
          line: start + 2,
          lang,
          code: codeLines.join('\n'),
          name: options.name,
          setups: options.setups,
          hidden: true,
        })
        pending = undefined
        continue
      }
      pending = { text: body, line: index + 1 }
      continue
    }
    const fence = FENCE.exec(text)
    if (fence) {
      const closing = new RegExp(`^\\s*${fence[1]}\\s*$`)
      const start = index
      const codeLines: string[] = []
      for (index++; index < lines.length && !closing.test(lines[index] ?? ''); index++) {
        codeLines.push(lines[index] ?? '')
      }
      const block: DocBlock = {
        file,
        line: start + 1,
        lang: fence[2] ?? '',
        code: codeLines.join('\n'),
        setups: [],
        hidden: false,
      }
      if (pending) Object.assign(block, markerOptions(file, pending))
      blocks.push(block)
      pending = undefined
      continue
    }
    if (text.trim() !== '') pending = undefined
  }
  return blocks
}

function markerOptions(
  file: string,
  marker: { text: string; line: number },
): Pick<DocBlock, 'skip' | 'name' | 'setups'> {
  const skip = /^skip\s*:\s*(.*)$/.exec(marker.text)
  if (skip) {
    const reason = skip[1]?.trim() ?? ''
    if (reason === '') {
      throw new DocMarkerError(`${file}:${marker.line}: "doc-test skip:" needs a reason after it`)
    }
    return { skip: reason, setups: [] }
  }
  return parseOptions(file, marker.line, marker.text)
}

function parseOptions(
  file: string,
  line: number,
  text: string,
): { name?: string; setups: string[] } {
  const options: { name?: string; setups: string[] } = { setups: [] }
  for (const token of text.trim().split(/\s+/).filter(Boolean)) {
    const [key, value] = token.split('=', 2)
    if (key === 'name' && value) options.name = value
    else if (key === 'setup' && value) options.setups.push(...value.split(',').filter(Boolean))
    else {
      throw new DocMarkerError(
        `${file}:${line}: unknown doc-test option "${token}" (use skip: <reason>, name=<name>, setup=<name>[,<name>])`,
      )
    }
  }
  return options
}
