import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { DocMarkerError, extractDocBlocks } from './extract-doc-blocks'
import { DocSetupError, prepareDocBlock } from './prepare-doc-block'
import type { BlockResult, ManifestEntry } from './run-doc-blocks'

const markdown = `# A doc

<!-- doc-test name=budget -->
\`\`\`ts
import { createBudget } from '@baton/core'
const budget = createBudget({ calls: 2 }, { name: 'b' })
\`\`\`

<!-- doc-test setup-block name=hidden
\`\`\`ts
const extra = 40
\`\`\`
-->
<!-- doc-test setup=budget,hidden -->
\`\`\`ts
import { createBudget } from '@baton/core'
console.log(budget.limits.calls + extra) // → 42
budget.child({ calls: 5 }) // → throws BudgetExceededError: Budget "b" cannot give a child 5 calls…
\`\`\`

<!-- doc-test skip: a type, to read -->
\`\`\`ts
type A = { a: 1 }
\`\`\`

\`\`\`sh
pnpm test
\`\`\`
`

describe('extractDocBlocks', () => {
  it('reads each block with its line, language, name, setups, skip reason and hidden setups', () => {
    const blocks = extractDocBlocks('docs/a.md', markdown)
    expect(
      blocks.map(({ line, lang, name, setups, skip, hidden }) => ({
        line,
        lang,
        name,
        setups,
        skip,
        hidden,
      })),
    ).toEqual([
      { line: 4, lang: 'ts', name: 'budget', setups: [], skip: undefined, hidden: false },
      { line: 10, lang: 'ts', name: 'hidden', setups: [], skip: undefined, hidden: true },
      {
        line: 15,
        lang: 'ts',
        name: undefined,
        setups: ['budget', 'hidden'],
        skip: undefined,
        hidden: false,
      },
      { line: 22, lang: 'ts', name: undefined, setups: [], skip: 'a type, to read', hidden: false },
      { line: 26, lang: 'sh', name: undefined, setups: [], skip: undefined, hidden: false },
    ])
  })

  it('refuses a skip without a reason and an unknown option, naming file and line', () => {
    expect(() => extractDocBlocks('docs/a.md', '<!-- doc-test skip: -->\n```ts\nx\n```\n')).toThrow(
      new DocMarkerError('docs/a.md:1: "doc-test skip:" needs a reason after it'),
    )
    expect(() =>
      extractDocBlocks('docs/a.md', 'x\n<!-- doc-test run -->\n```ts\nx\n```\n'),
    ).toThrow(/docs\/a\.md:2: unknown doc-test option "run"/)
  })
})

describe('prepareDocBlock', () => {
  it('puts the setups first, merges imports and refuses an unknown setup', () => {
    const blocks = extractDocBlocks('docs/a.md', markdown)
    const prepared = prepareDocBlock(blocks[2]!, blocks)
    expect(prepared.source.match(/import \{ createBudget \} from '@baton\/core'/g)).toHaveLength(1)
    expect(prepared.source).toContain('__docLog("docs/a.md:17", "42", budget.limits.calls + extra)')
    expect(prepared.origins).toContain('docs/a.md:11')
    const lonely = extractDocBlocks('docs/b.md', '<!-- doc-test setup=nope -->\n```ts\nx\n```\n')
    expect(() => prepareDocBlock(lonely[0]!, lonely)).toThrow(DocSetupError)
  })
})

describe('run-doc-blocks', () => {
  it('runs blocks, checks what they print, and names the doc line where one fails', async () => {
    const examples = fileURLToPath(new URL('..', import.meta.url))
    const workDir = await mkdtemp(path.join(examples, '.doc-blocks-'))
    try {
      const doc = `${markdown}
\`\`\`ts
console.log(1 + 1) // → 3
\`\`\`

\`\`\`ts
const fine = 1
notDefinedAnywhere(fine)
\`\`\`
`
      const blocks = extractDocBlocks('docs/a.md', doc)
      const manifest: ManifestEntry[] = []
      for (const block of blocks.filter(
        (each) => each.lang === 'ts' && !each.skip && !each.hidden,
      )) {
        const modulePath = path.join(workDir, `block-${block.line}.ts`)
        const prepared = prepareDocBlock(block, blocks)
        await writeFile(modulePath, prepared.source)
        manifest.push({
          id: `docs/a.md:${block.line}`,
          modulePath,
          origins: prepared.origins,
          needsServer: false,
        })
      }
      await writeFile(path.join(workDir, 'manifest.json'), JSON.stringify(manifest))
      await promisify(execFile)(
        process.execPath,
        [
          '--import',
          'tsx',
          '--conditions=@baton/source',
          fileURLToPath(new URL('./run-doc-blocks.ts', import.meta.url)),
          path.join(workDir, 'manifest.json'),
          path.join(workDir, 'results.json'),
        ],
        { cwd: workDir, timeout: 60_000 },
      )
      const results = JSON.parse(
        await readFile(path.join(workDir, 'results.json'), 'utf8'),
      ) as BlockResult[]
      expect(results.map(({ id, ok, where }) => ({ id, ok, where }))).toEqual([
        { id: 'docs/a.md:4', ok: true, where: undefined },
        { id: 'docs/a.md:15', ok: true, where: undefined },
        { id: 'docs/a.md:30', ok: false, where: 'docs/a.md:31' },
        { id: 'docs/a.md:34', ok: false, where: 'docs/a.md:36' },
      ])
      expect(results[2]?.error).toBe('DocOutputError: printed 2\n    the doc says 3')
      expect(results[3]?.error).toMatch(/ReferenceError: notDefinedAnywhere is not defined/)
    } finally {
      await rm(workDir, { recursive: true, force: true })
    }
  })
})
