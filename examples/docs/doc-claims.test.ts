import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { SwarmStrategy } from '@baton/core'
import { parsePlan, STEP_OPS } from '@baton/mal'
import { describe, expect, it } from 'vitest'
import { demoPlans } from '../../apps/server/src/seed/demo-plans'
import { SettingsSchema } from '../../apps/server/src/settings/settings'
import { documentationFiles } from './documentation-files'
import { extractDocBlocks } from './extract-doc-blocks'

const root = fileURLToPath(new URL('../..', import.meta.url))
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

function headingsOf(markdown: string): string[] {
  const withoutCode = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '')
  return [...withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((match) => match[1] ?? '')
}

describe('what the documentation claims about the code', () => {
  it('lists every server setting in the operations settings table', () => {
    const table = read('docs/operations.md').split('## Settings')[1]?.split('\n## ')[0] ?? ''
    const missing = Object.keys(SettingsSchema.shape).filter(
      (name) => !table.includes(`\`${name}\``),
    )
    expect(missing, 'variables SettingsSchema reads that docs/operations.md does not list').toEqual(
      [],
    )
  })

  it("names every swarm strategy in swarms.md's SwarmRunResult", () => {
    const result = read('docs/swarms.md').split('type SwarmRunResult = {')[1]?.split('\n}')[0] ?? ''
    const strategyField = result.split('status:')[0] ?? ''
    for (const strategy of SwarmStrategy.options) expect(strategyField).toContain(`'${strategy}'`)
  })

  it('names every MAL op in the mal README', () => {
    const readme = read('packages/mal/README.md')
    for (const op of STEP_OPS) expect(readme).toContain(`\`${op}\``)
  })

  it('names every swarm event type in http-api.md', () => {
    const types = read('packages/mal/src/swarm/types.ts')
    const events = [...types.matchAll(/type: '(swarm-[a-z-]+|round-[a-z-]+)'/g)].map(
      (match) => match[1],
    )
    expect(events).toContain('swarm-error')
    const httpApi = read('docs/http-api.md')
    for (const event of events) expect(httpApi).toContain(`\`${event}\``)
  })

  it('seeds the risk-review plan of the MAL reference, labelled without a file path', () => {
    for (const plan of demoPlans) expect(plan.name).not.toMatch(/[/\\]|\.md\b|\(docs/)
    const seeded = demoPlans.find((plan) => plan.id === 'risk-review')
    const documented = extractDocBlocks(
      'docs/mal-reference.md',
      read('docs/mal-reference.md'),
    ).find((block) => block.name === 'planYaml')
    expect(seeded && documented).toBeTruthy()
    const { requireReceipt: _receipt, ...seededPlan } = parsePlan(seeded?.source ?? '')
    expect(seededPlan).toEqual(parsePlan(documented?.code ?? ''))
  })

  it.each(documentationFiles())('%s has each heading once', (file) => {
    const headings = headingsOf(read(file))
    const repeated = headings.filter((heading, index) => headings.indexOf(heading) !== index)
    expect(repeated).toEqual([])
  })

  it.each(documentationFiles())('%s links only to files and headings that exist', (file) => {
    const text = read(file).replace(/^(```|~~~)[\s\S]*?^\1/gm, '')
    const broken: string[] = []
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? ''
      if (/^[a-z]+:/i.test(target)) continue
      const [relative = '', anchor] = target.split('#')
      const linked = relative === '' ? file : path.join(path.dirname(file), relative)
      if (!existsSync(path.join(root, linked))) {
        broken.push(`${target} (no file ${linked})`)
        continue
      }
      if (anchor && linked.endsWith('.md')) {
        const anchors = headingsOf(read(linked)).map(anchorOf)
        if (!anchors.includes(anchor)) broken.push(`${target} (no heading #${anchor} in ${linked})`)
      }
    }
    expect(broken).toEqual([])
  })
})
