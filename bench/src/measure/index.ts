export { startCpuProfile } from './cpu-profile'
export {
  type LoadRound,
  type LoadServer,
  type LoadTestOptions,
  type LoadTestResult,
  loadTest,
  startLoadServer,
} from './load-test'
export { CHILD_NODE_FLAGS, SOURCE_NODE_FLAGS } from './node-flags'
export { type PairedLoad, type PairedLoadOptions, pairedLoadTest } from './paired-load'
export { withPeakRss } from './peak-rss'
export { type ServerProcess, startServerProcess } from './server-process'
export { timePerOperation, timing } from './time-per-op'
export { type TimedRuns, timeRuns } from './time-runs'
