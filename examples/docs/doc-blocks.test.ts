import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { safeParsePlan } from '@baton/mal'
import { freePort } from '@baton/testing/ports'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ServerProcess,
  startServerProcess,
} from '../../apps/server/src/__fixtures__/server-process'
import { documentationFiles } from './documentation-files'
import { type DocBlock, extractDocBlocks, RUN_LANGUAGES } from './extract-doc-blocks'
import { DocSetupError, prepareDocBlock } from './prepare-doc-block'
import type { BlockResult, ManifestEntry } from './run-doc-blocks'

const run = promisify(execFile)
const examples = fileURLToPath(new URL('..', import.meta.url))
const root = path.join(examples, '..')
const runner = fileURLToPath(new URL('./run-doc-blocks.ts', import.meta.url))

const HOW_TO_FIX = `Each ts/js block of the documentation is run (examples/docs/doc-blocks.test.ts). Either
make it run as written — a name it takes from an earlier block: mark that block
<!-- doc-test name=NAME --> and this one <!-- doc-test setup=NAME -->; a name the reader
need not see: a hidden <!-- doc-test setup-block name=NAME ... --> before it; the server
is at http://127.0.0.1:8787 — or, if it is not meant to run (a sketch, a type, a fragment of
a larger program), put <!-- doc-test skip: <why> --> on the line before its fence.
See CONTRIBUTING.md, "Documentation code blocks".`

// DOC_TEST_ONLY=docs/swarms.md (a comma-separated list) runs only those files' blocks.
const only = process.env.DOC_TEST_ONLY?.split(',').map((file) => file.trim())
const files = documentationFiles().filter((file) => !only || only.includes(file))
const blocksByFile = new Map<string, DocBlock[]>()
const failures = new Map<string, string[]>()
const fail = (file: string, message: string) => {
  failures.set(file, [...(failures.get(file) ?? []), message])
}
let server: ServerProcess | undefined
let dataDir: string | undefined
let workDir: string | undefined

beforeAll(async () => {
  for (const file of files) {
    try {
      blocksByFile.set(file, extractDocBlocks(file, readFileSync(path.join(root, file), 'utf8')))
    } catch (error) {
      fail(file, (error as Error).message)
    }
  }
  const runnable = [...blocksByFile.values()]
    .flat()
    .filter((block) => RUN_LANGUAGES.has(block.lang) && !block.skip && !block.hidden)
  const usesServer = (block: DocBlock) =>
    [block, ...(blocksByFile.get(block.file) ?? [])].some((each) => each.code.includes(':8787'))
  // The server starts while the blocks that need none run; those that do wait for it.
  let serverUrl: string | undefined
  let serverStarted: Promise<unknown> = Promise.resolve()
  if (runnable.some(usesServer)) {
    const port = await freePort()
    serverUrl = `http://127.0.0.1:${port}`
    dataDir = await mkdtemp(path.join(tmpdir(), 'baton-doc-blocks-data-'))
    serverStarted = startServerProcess({ BATON_DATA_DIR: dataDir, PORT: String(port) }).then(
      (started) => {
        server = started
      },
    )
  }
  workDir = await mkdtemp(path.join(examples, '.doc-blocks-'))
  const manifest: ManifestEntry[] = []
  const ordered = [
    ...runnable.filter((block) => !usesServer(block)),
    ...runnable.filter(usesServer),
  ]
  for (const block of ordered) {
    const id = `${block.file}:${block.line}`
    try {
      const prepared = prepareDocBlock(block, blocksByFile.get(block.file) ?? [], {
        ...(serverUrl ? { serverUrl } : {}),
      })
      const extension = block.lang === 'tsx' ? 'tsx' : 'ts'
      const modulePath = path.join(workDir, `${id.replace(/[^\w]+/g, '-')}.${extension}`)
      await writeFile(modulePath, prepared.source)
      manifest.push({ id, modulePath, origins: prepared.origins, needsServer: usesServer(block) })
    } catch (error) {
      if (!(error instanceof DocSetupError)) throw error
      fail(block.file, `${id} — ${error.message}`)
    }
  }
  const manifestPath = path.join(workDir, 'manifest.json')
  const resultsPath = path.join(workDir, 'results.json')
  await writeFile(manifestPath, JSON.stringify(manifest))
  const startedAt = Date.now()
  await Promise.all([
    serverStarted.then(() => {
      if (process.env.DOC_TEST_TIMINGS) console.log(`server up after ${Date.now() - startedAt} ms`)
    }),
    run(
      process.execPath,
      ['--import', 'tsx', '--conditions=@baton/source', runner, manifestPath, resultsPath],
      {
        // Blocks that write relative paths (./work) write them in the folder removed after.
        cwd: workDir,
        timeout: 240_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, ...(serverUrl ? { DOC_TEST_SERVER_URL: serverUrl } : {}) },
      },
    ),
  ])
  const results = JSON.parse(await readFile(resultsPath, 'utf8')) as BlockResult[]
  if (process.env.DOC_TEST_TIMINGS) {
    for (const result of results) console.log(`${String(result.ms).padStart(6)} ms ${result.id}`)
  }
  for (const result of results) {
    if (result.ok) continue
    const file = result.id.slice(0, result.id.lastIndexOf(':'))
    const at = result.where && result.where !== result.id ? ` (at ${result.where})` : ''
    const printed = result.output ? `\n    it printed: ${result.output.slice(0, 400)}` : ''
    fail(file, `${result.id} — ${result.error}${at}${printed}`)
  }
}, 300_000)

afterAll(async () => {
  if (server) {
    server.child.kill('SIGTERM')
    await server.exited
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
  if (workDir) await rm(workDir, { recursive: true, force: true })
})

describe('documentation code blocks', () => {
  it.each(files)('%s: every ts/js block runs and prints what it says, or says why not', (file) => {
    const problems = failures.get(file) ?? []
    if (problems.length > 0) throw new Error(`${problems.join('\n')}\n\n${HOW_TO_FIX}`)
    expect(problems).toEqual([])
  })

  it.each(files)('%s: every MAL plan in a yaml block passes the plan check', (file) => {
    const problems: string[] = []
    for (const block of blocksByFile.get(file) ?? []) {
      if (!['yaml', 'yml'].includes(block.lang) || block.skip || !/^steps:/m.test(block.code)) {
        continue
      }
      const result = safeParsePlan(block.code)
      if (result.success) continue
      for (const issue of result.error.issues) {
        const line = issue.line === undefined ? block.line : block.line + issue.line
        problems.push(`${file}:${line} — ${issue.path}: ${issue.message}`)
      }
    }
    if (problems.length > 0) {
      throw new Error(
        `${problems.join('\n')}\n\nA yaml block with a top-level "steps:" is checked as a MAL plan; fix it, or mark it <!-- doc-test skip: <why> --> (a plan shown refused, say).`,
      )
    }
  })
})
