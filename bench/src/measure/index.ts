export { type LoadTestOptions, type LoadTestResult, loadTest } from './load-test'
export { CHILD_NODE_FLAGS } from './node-flags'
export { withPeakRss } from './peak-rss'
export { timePerOperation, timing } from './time-per-op'
