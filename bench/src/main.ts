// `pnpm bench`: every case of issue 14, Baton beside the bare limit and the peers, each
// subject in a fresh process; prints the table and writes it as JSON to bench/results/.
// Nothing here fails on a figure: a case that throws shows its error in its row.
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchCase, CASES, type Subject } from './cases'
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
  unbuiltPackages,
  type Work,
  workKey,
} from './report'

const args = parseBenchArgs(process.argv.slice(2))
const unknown = (args.only ?? []).filter((name) => !CASES.some((entry) => entry.name === name))
if (unknown.length > 0) {
  const known = CASES.map((entry) => entry.name).join(', ')
  console.error(`unknown case ${unknown.join(', ')}; cases: ${known}`)
  process.exit(2)
}
const unbuilt = unbuiltPackages()
if (unbuilt) {
  console.error(unbuilt)
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

const workOf = (benchCase: BenchCase): Work[] =>
  benchCase.subjects
    .filter((subject) => args.subjects?.includes(subject) ?? true)
    .map((subject) => ({ name: benchCase.name, subject }))

function report(benchCase: BenchCase, work: Work, outcome: Outcome | undefined): void {
  const shown = outcome?.ok
    ? `${outcome.figure.text ?? formatNumber(outcome.figure.value)} ${benchCase.unit}`
    : `error: ${outcome?.error}`
  console.error(`  ${work.name} ${work.subject}: ${shown}`)
}

/** Prints and keeps the self time of each profile a subject's process (and its server) wrote. */
async function readProfiles(directory: string, label: string): Promise<Record<string, SelfTime[]>> {
  const profiles: Record<string, SelfTime[]> = {}
  for (const [where, name] of [
    ['', label],
    ['server', `${label} server`],
  ] as const) {
    const files = await readdir(path.join(directory, where)).catch(() => [] as string[])
    for (const file of files.filter((entry) => entry.endsWith('.cpuprofile'))) {
      const top = await topSelfTime(path.join(directory, where, file), 12)
      // A process that wrote several profiles (one per variant) names each by its file.
      const several = files.filter((entry) => entry.endsWith('.cpuprofile')).length > 1
      const shown = several ? `${name} ${file.replace(/\.cpuprofile$/, '')}` : name
      profiles[shown] = top
      console.error(`  profile of ${shown} (self time):`)
      for (const entry of top) {
        console.error(`    ${entry.percent.toFixed(1).padStart(5)}%  ${entry.name}  ${entry.where}`)
      }
    }
  }
  return profiles
}

const outcomes = new Map<string, Outcome>()
const profiles = new Map<string, Record<string, SelfTime[]>>()
if (args.size === 'tiny' && !args.profile) {
  // The smoke test measures everything in one process, to stay well within CI's time. It
  // takes about 150 s on a quiet two-core machine, and CI runs it beside other tests.
  const work = selected.flatMap(workOf)
  for (const [key, outcome] of await runInChild({ size: 'tiny', work, timeoutMs: 600_000 })) {
    outcomes.set(key, outcome)
  }
  for (const benchCase of selected) {
    for (const each of workOf(benchCase)) report(benchCase, each, outcomes.get(workKey(each)))
  }
} else {
  // Every subject gets a process of its own: memory figures and profiles must not mix.
  for (const benchCase of selected) {
    const caseStarted = performance.now()
    const caseProfiles: Record<string, SelfTime[]> = {}
    for (const each of workOf(benchCase)) {
      const profileDirectory = args.profile
        ? path.join(resultsDirectory, `${stamp}-profiles`, `${each.name}-${each.subject}`)
        : undefined
      const result = await runInChild({
        size: args.size,
        work: [each],
        timeoutMs: args.size === 'full' ? 600_000 : 90_000,
        ...(profileDirectory ? { profileDirectory } : {}),
      })
      const outcome = result.get(workKey(each))
      if (outcome) outcomes.set(workKey(each), outcome)
      if (profileDirectory) {
        Object.assign(
          caseProfiles,
          await readProfiles(profileDirectory, `${each.name} ${each.subject}`),
        )
      }
      report(benchCase, each, outcome)
    }
    profiles.set(benchCase.name, caseProfiles)
    console.error(`  ${benchCase.name}: ${((performance.now() - caseStarted) / 1000).toFixed(1)} s`)
  }
}

const rows: Row[] = selected.map((benchCase) => {
  const own: Partial<Record<Subject, Outcome>> = {}
  for (const each of workOf(benchCase)) {
    const outcome = outcomes.get(workKey(each))
    if (outcome) own[each.subject] = outcome
  }
  const caseProfiles = profiles.get(benchCase.name)
  return {
    ...buildRow(benchCase, args.size, own),
    ...(args.profile && caseProfiles ? { profiles: caseProfiles } : {}),
  }
})

console.log(formatTable(rows))
await mkdir(resultsDirectory, { recursive: true })
const file = path.join(resultsDirectory, `${stamp}.json`)
await writeFile(
  file,
  `${JSON.stringify({ size: args.size, startedAt, finishedAt: new Date(), machine, rows }, null, 2)}\n`,
)
console.error(`results: ${file}`)
