// The telemetry bench's own process (started with the telemetry switch as an `--import`, so
// the switch sees every instrumented module load): prints its figure as one JSON line.
import type { Size } from '../types'
import { measureChainTelemetry } from './measure-chain-telemetry'

const size = (process.argv[2] ?? 'tiny') as Size
const figure = await measureChainTelemetry(size, {
  profileDirectory: process.env.BATON_BENCH_PROFILE_DIR,
})
process.stdout.write(`\n${JSON.stringify({ figure })}\n`)
process.exit(0)
