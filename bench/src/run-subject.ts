// The subjects of one case, measured in this process (started by main.ts, so no case inherits
// another's heap, JIT or timers). Prints one JSON line per subject:
// { subject, ok: true, figure } or { subject, ok: false, error }.
import { CASES, type Size, type Subject } from './cases'
import { startCpuProfile, timing } from './measure'

const [name = '', size = 'tiny', ...subjects] = process.argv.slice(2) as [
  string,
  Size,
  ...Subject[],
]

// The smoke test checks that every case runs, not its figures: short timing loops.
if (size === 'tiny') timing.minMs = 20

const found = CASES.find((entry) => entry.name === name)
for (const subject of subjects) {
  try {
    if (!found) throw new Error(`there is no case ${name}`)
    const measure = (await found.load())[subject]
    if (!measure) throw new Error(`case ${name} has no ${subject} subject`)
    // With --profile, only the work is profiled (its warm-up included), not the imports.
    const profileDirectory = process.env.BATON_BENCH_PROFILE_DIR
    const stop = profileDirectory ? await startCpuProfile() : undefined
    const figure = await measure(size)
    await stop?.(profileDirectory!, subject)
    process.stdout.write(`\n${JSON.stringify({ subject, ok: true, figure })}\n`)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    process.stdout.write(
      `\n${JSON.stringify({ subject, ok: false, error: message.split('\n')[0] })}\n`,
    )
  }
}
// Servers, timers or sockets a library left open must not keep the benchmark waiting.
process.exit(0)
