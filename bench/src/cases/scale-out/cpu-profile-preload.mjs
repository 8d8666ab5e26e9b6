// Loaded into each scale-out server process with --profile (`NODE_OPTIONS=--import …`, as
// `--cpu-prof` is not allowed there): SIGUSR2 starts a CPU profile, so it covers the measured
// runs and not the start; the process writes it as it exits.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import path from 'node:path'

const directory = process.env.BATON_BENCH_SERVER_PROFILE_DIR
if (directory) {
  const session = new Session()
  let started = false
  process.on('SIGUSR2', () => {
    if (started) return
    started = true
    session.connect()
    session.post('Profiler.enable', () => session.post('Profiler.start'))
  })
  process.on('exit', () => {
    if (!started) return
    // An in-thread session answers at once: the profile is written before the process ends.
    session.post('Profiler.stop', (error, result) => {
      if (error || !result) return
      const name = `${process.env.BATON_WORKER_NAME ?? 'server'}-${process.pid}.cpuprofile`
      writeFileSync(path.join(directory, name), JSON.stringify(result.profile))
    })
  })
}
