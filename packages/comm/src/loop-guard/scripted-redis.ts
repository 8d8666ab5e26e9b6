import type { Redis } from 'ioredis'
import { ADMIT, ALLOW, HOPS, LIVE, OBSERVE, RECORDED, STOP } from './redis-loop-guard-scripts'

export type Script = (...args: (string | number)[]) => Promise<unknown>
export type Scripted = Redis & {
  batonAdmit: Script
  batonObserve: Script
  batonRecorded: Script
  batonAllow: Script
  batonStop: Script
  batonHops: Script
  batonLive: Script
}

const scripts = {
  batonAdmit: ADMIT,
  batonObserve: OBSERVE,
  batonRecorded: RECORDED,
  batonAllow: ALLOW,
  batonStop: STOP,
  batonHops: HOPS,
  batonLive: LIVE,
}

/**
 * Defines the guard's Lua scripts as commands of `client`, which it returns typed with them.
 *
 * @example
 * const scripted = defineGuardScripts(client)
 * await scripted.batonHops('baton', Date.now(), 3_600_000, correlationId)
 */
export function defineGuardScripts(client: Redis): Scripted {
  for (const [name, lua] of Object.entries(scripts)) {
    client.defineCommand(name, { numberOfKeys: 0, lua })
  }
  return client as Scripted
}
