// Measures the subjects it is given (`case:subject ...`) in this process, one after the other.
// main.ts starts one such process per subject at full size (no case inherits another's heap,
// JIT or timers), and one for the whole smoke test. Prints one JSON line per subject:
// { case, subject, ok: true, figure } or { case, subject, ok: false, error }.
import { CASES, type Size, type Subject } from './cases'
import { startCpuProfile, timing } from './measure'

const [size = 'tiny', ...work] = process.argv.slice(2) as [Size, ...string[]]

// The smoke test checks that every case runs, not its figures: short timing loops.
if (size === 'tiny') {
  timing.minMs = 20
  timing.warmUpMs = 0
}

for (const token of work) {
  const [name, subject] = token.split(':') as [string, Subject]
  try {
    const found = CASES.find((entry) => entry.name === name)
    if (!found) throw new Error(`there is no case ${name}`)
    const measure = (await found.load())[subject]
    if (!measure) throw new Error(`case ${name} has no ${subject} subject`)
    // With --profile, only the work is profiled (its warm-up included), not the imports.
    const profileDirectory = process.env.BATON_BENCH_PROFILE_DIR
    const stop = profileDirectory && !found.profilesItself ? await startCpuProfile() : undefined
    const figure = await measure(size)
    await stop?.(profileDirectory!, subject)
    process.stdout.write(`\n${JSON.stringify({ case: name, subject, ok: true, figure })}\n`)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const line = { case: name, subject, ok: false, error: message.split('\n')[0] }
    process.stdout.write(`\n${JSON.stringify(line)}\n`)
  }
}
// Servers, timers or sockets a library left open must not keep the benchmark waiting.
process.exit(0)
