export { fromSourceArgs } from './from-source-args'
export { isAlive } from './is-alive'
export { killAll, stopChild } from './stop-child'
export { waitFor } from './wait-for'
