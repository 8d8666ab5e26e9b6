export type { SwarmRunEvent, SwarmRunner, SwarmRunOutcome } from './types'
