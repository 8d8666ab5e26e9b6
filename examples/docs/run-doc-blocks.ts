/**
 * Runs prepared documentation blocks, one module each, in this one process (so the packages
 * load once), and writes what happened to a JSON file. Started by doc-blocks.test.ts:
 *
 *   node --import tsx --conditions=@baton/source run-doc-blocks.ts manifest.json results.json
 */
import { readFile, writeFile } from 'node:fs/promises'
import { pathToFileURL } from 'node:url'
import { format, inspect } from 'node:util'

export type ManifestEntry = {
  id: string
  modulePath: string
  origins: (string | undefined)[]
  /** It talks to the server under test, which may still be starting. */
  needsServer: boolean
}
export type BlockResult = {
  id: string
  ok: boolean
  error?: string
  where?: string
  output: string
  /** How long the block took (waiting for the server included). */
  ms: number
}

const blockTimeoutMs = 30_000

class DocOutputError extends Error {
  override name = 'DocOutputError'
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(message)
  }
}

/** Whether `actual` is what the doc shows: spaces collapsed, `…` or `...` match anything. */
function matches(actual: string, expected: string): boolean {
  const squash = (text: string) => text.replace(/\s+/g, ' ').trim()
  const pattern = squash(expected)
    .split(/…|\.\.\./)
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?')
  return new RegExp(`^${pattern}$`).test(squash(actual))
}

const show = (value: unknown) =>
  inspect(value, { depth: 8, breakLength: Number.POSITIVE_INFINITY, maxStringLength: 10_000 })

let output: string[] = []
const original = { log: console.log, info: console.info, warn: console.warn, error: console.error }
for (const method of ['log', 'info', 'warn', 'error'] as const) {
  console[method] = (...args: unknown[]) => {
    output.push(format(...args))
  }
}

const globals = globalThis as Record<string, unknown>
globals.__docLog = (where: string, expected: string, ...args: unknown[]) => {
  const printed = format(...args)
  output.push(printed)
  if (!matches(printed, expected)) {
    throw new DocOutputError(where, `printed ${printed}\n    the doc says ${expected}`)
  }
}
globals.__docValue = (where: string, expected: string, value: unknown) => {
  if (!matches(show(value), expected)) {
    throw new DocOutputError(where, `gives ${show(value)}\n    the doc says ${expected}`)
  }
  return value
}
globals.__docThrows = async (where: string, expected: string, run: () => Promise<unknown>) => {
  try {
    await run()
  } catch (error) {
    const said = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    if (!matches(said, expected)) {
      throw new DocOutputError(where, `threw ${said}\n    the doc says throws ${expected}`)
    }
    return
  }
  throw new DocOutputError(where, `did not throw; the doc says throws ${expected}`)
}

let lateErrors: unknown[] = []
process.on('unhandledRejection', (reason) => lateErrors.push(reason))
process.on('uncaughtException', (error) => lateErrors.push(error))

function locate(error: unknown, entry: ManifestEntry): string | undefined {
  if (error instanceof DocOutputError) return error.where
  const stack = error instanceof Error ? (error.stack ?? '') : ''
  const file = entry.modulePath.split(/[\\/]/).pop() ?? ''
  for (const match of stack.matchAll(/:(\d+):\d+\)?$/gm)) {
    const line = Number(match[1])
    const before = stack.slice(0, match.index)
    if (before.slice(before.lastIndexOf('\n')).includes(file)) return entry.origins[line - 1]
  }
  return undefined
}

// A syntax error names the generated file and its line; the reader needs the doc's.
function describeError(error: unknown, entry: ManifestEntry): string {
  const said = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return said
    .split(entry.modulePath)
    .join('')
    .replace(/^:(\d+):\d+: /gm, (_, line: string) => `${entry.origins[Number(line) - 1] ?? '?'}: `)
}

let serverReady: Promise<void> | undefined

/** Resolves once the server under test answers /health (it starts while other blocks run). */
function waitForServer(): Promise<void> {
  serverReady ??= (async () => {
    const url = process.env.DOC_TEST_SERVER_URL
    if (!url) throw new Error('no server under test (DOC_TEST_SERVER_URL is unset)')
    const deadline = Date.now() + 150_000
    while (Date.now() < deadline) {
      const answered = await fetch(`${url}/health`).then(
        (response) => response.ok,
        () => false,
      )
      if (answered) return
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    throw new Error(`the server under test did not answer at ${url} within 150 s`)
  })()
  return serverReady
}

async function main(): Promise<void> {
  const [manifestPath, resultsPath] = process.argv.slice(2)
  if (!manifestPath || !resultsPath)
    throw new Error('usage: run-doc-blocks manifest.json results.json')
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as ManifestEntry[]
  const results: BlockResult[] = []
  const home = process.cwd()
  for (const entry of manifest) {
    process.chdir(home)
    output = []
    lateErrors = []
    let timer: ReturnType<typeof setTimeout> | undefined
    const started = Date.now()
    const took = () => Date.now() - started
    try {
      if (entry.needsServer) await waitForServer()
      await Promise.race([
        import(pathToFileURL(entry.modulePath).href),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`it did not finish within ${blockTimeoutMs / 1000} s`)),
            blockTimeoutMs,
          )
        }),
      ])
      // A rejection nobody awaited surfaces a tick later.
      await new Promise((resolve) => setTimeout(resolve, 20))
      if (lateErrors.length > 0) throw lateErrors[0]
      results.push({ id: entry.id, ok: true, output: output.join('\n'), ms: took() })
    } catch (error) {
      const where = locate(error, entry)
      results.push({
        id: entry.id,
        ok: false,
        error: describeError(error, entry),
        ...(where ? { where } : {}),
        output: output.join('\n'),
        ms: took(),
      })
    } finally {
      clearTimeout(timer)
    }
  }
  await writeFile(resultsPath, JSON.stringify(results))
}

try {
  await main()
} catch (error) {
  original.error(error)
  process.exit(2)
}
// Blocks may leave servers or timers behind; they are done with.
process.exit(0)
