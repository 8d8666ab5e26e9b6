// `pnpm bench`: every case of issue 14, Baton beside the bare limit and the peers, each
// subject in a fresh process; prints the table and writes it as JSON to bench/results/.
// Nothing here fails on a figure: a case that throws shows its error in its row.
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
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
  type SelfTime,
  topSelfTime,
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
const stamp = startedAt.toISOString().replace(/[:.]/g, '-')
const resultsDirectory = fileURLToPath(new URL('../results/', import.meta.url))
const machine = describeMachine()
console.error(
  `bench (${args.size}): ${selected.length} cases on ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}`,
)

const rows: Row[] = []
for (const benchCase of selected) {
  const caseStarted = performance.now()
  const outcomes: Partial<Record<Subject, Outcome>> = {}
  const profiles: Record<string, SelfTime[]> = {}
  // At full size every subject gets a process of its own (memory figures must not mix); the
  // smoke test runs a case's subjects together to stay within CI's time.
  const chosen = benchCase.subjects.filter((subject) => args.subjects?.includes(subject) ?? true)
  const groups =
    args.size === 'full' || args.profile ? chosen.map((subject) => [subject]) : [chosen]
  for (const subjects of groups) {
    const profileDirectory = args.profile
      ? path.join(resultsDirectory, `${stamp}-profiles`, `${benchCase.name}-${subjects.join('-')}`)
      : undefined
    Object.assign(
      outcomes,
      await runInChild({
        name: benchCase.name,
        size: args.size,
        subjects,
        timeoutMs: args.size === 'full' ? 600_000 : 90_000,
        ...(profileDirectory ? { profileDirectory } : {}),
      }),
    )
    if (profileDirectory) {
      const label = subjects.join(', ')
      for (const [where, name] of [
        ['', label],
        ['server', `${label} server`],
      ] as const) {
        const directory = path.join(profileDirectory, where)
        const files = await readdir(directory).catch(() => [] as string[])
        const file = files.find((entry) => entry.endsWith('.cpuprofile'))
        if (!file) continue
        const top = await topSelfTime(path.join(directory, file), 12)
        profiles[name] = top
        console.error(`  profile of ${benchCase.name} ${name} (self time):`)
        for (const entry of top) {
          console.error(
            `    ${entry.percent.toFixed(1).padStart(5)}%  ${entry.name}  ${entry.where}`,
          )
        }
      }
    }
    for (const subject of subjects) {
      const outcome = outcomes[subject]
      const shown = outcome?.ok
        ? (outcome.figure.text ?? formatNumber(outcome.figure.value))
        : `error: ${outcome?.error}`
      console.error(`  ${benchCase.name} ${subject}: ${shown} ${outcome?.ok ? benchCase.unit : ''}`)
    }
  }
  console.error(`  ${benchCase.name}: ${((performance.now() - caseStarted) / 1000).toFixed(1)} s`)
  rows.push({
    ...buildRow(benchCase, args.size, outcomes),
    ...(args.profile ? { profiles } : {}),
  })
}

console.log(formatTable(rows))
await mkdir(resultsDirectory, { recursive: true })
const file = path.join(resultsDirectory, `${stamp}.json`)
await writeFile(
  file,
  `${JSON.stringify({ size: args.size, startedAt, finishedAt: new Date(), machine, rows }, null, 2)}\n`,
)
console.error(`results: ${file}`)
