// `pnpm bench`: every case of issue 14, Baton beside the bare limit and the peers, each
// subject in a fresh process; prints the table and writes it as JSON to bench/results/.
// Nothing here fails on a figure: a case that throws shows its error in its row.
import { mkdir, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { CASES, type Subject } from './cases'
import {
  buildRow,
  describeMachine,
  formatNumber,
  formatTable,
  type Outcome,
  parseBenchArgs,
  type Row,
  runInChild,
} from './report'

const args = parseBenchArgs(process.argv.slice(2))
const unknown = (args.only ?? []).filter((name) => !CASES.some((entry) => entry.name === name))
if (unknown.length > 0) {
  console.error(
    `unknown case ${unknown.join(', ')}; cases: ${CASES.map((entry) => entry.name).join(', ')}`,
  )
  process.exit(2)
}
const selected = CASES.filter((entry) => !args.only || args.only.includes(entry.name))
const startedAt = new Date()
const machine = describeMachine()
console.error(
  `bench (${args.size}): ${selected.length} cases on ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}`,
)

const rows: Row[] = []
for (const benchCase of selected) {
  const outcomes: Partial<Record<Subject, Outcome>> = {}
  // At full size every subject gets a process of its own (memory figures must not mix); the
  // smoke test runs a case's subjects together to stay within CI's time.
  const groups =
    args.size === 'full'
      ? benchCase.subjects.map((subject) => [subject])
      : [[...benchCase.subjects]]
  for (const subjects of groups) {
    Object.assign(
      outcomes,
      await runInChild({
        name: benchCase.name,
        size: args.size,
        subjects,
        timeoutMs: args.size === 'full' ? 600_000 : 90_000,
      }),
    )
    for (const subject of subjects) {
      const outcome = outcomes[subject]
      const shown = outcome?.ok
        ? (outcome.figure.text ?? formatNumber(outcome.figure.value))
        : `error: ${outcome?.error}`
      console.error(`  ${benchCase.name} ${subject}: ${shown} ${outcome?.ok ? benchCase.unit : ''}`)
    }
  }
  rows.push(buildRow(benchCase, args.size, outcomes))
}

console.log(formatTable(rows))
const resultsDirectory = fileURLToPath(new URL('../results/', import.meta.url))
await mkdir(resultsDirectory, { recursive: true })
const file = `${resultsDirectory}${startedAt.toISOString().replace(/[:.]/g, '-')}.json`
await writeFile(
  file,
  `${JSON.stringify({ size: args.size, startedAt, finishedAt: new Date(), machine, rows }, null, 2)}\n`,
)
console.error(`results: ${file}`)
