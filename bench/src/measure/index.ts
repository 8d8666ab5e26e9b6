export { withPeakRss } from './peak-rss'
export { timePerOperation } from './time-per-op'
