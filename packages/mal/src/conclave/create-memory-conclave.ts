import {
  checkConclaveRoom,
  checkConclaveWrite,
  checkIfVersion,
  DEFAULT_CONCLAVE_LIMITS,
} from './check-conclave-write'
import type { ConclaveEntry, ConclaveLimits, ConclaveStore } from './conclave-types'

type Space = {
  entries: Map<string, ConclaveEntry>
  // A deleted key keeps its last version, so a rewrite never reuses a version number.
  versions: Map<string, number>
  timer?: ReturnType<typeof setTimeout>
}

/**
 * A conclave in this process's memory. Each operation runs to completion before the next
 * (no await inside), so compare-and-set is atomic among every caller of the store.
 *
 * @example
 * const conclave = createMemoryConclave({ maxKeys: 100 })
 * await conclave.write(runId, 'draft', 'v1', { writtenBy: wallet, ifVersion: 0 })
 */
export function createMemoryConclave(limits: ConclaveLimits = {}): ConclaveStore {
  const bounds = { ...DEFAULT_CONCLAVE_LIMITS, ...limits }
  const spaces = new Map<string, Space>()
  const spaceOf = (name: string): Space => {
    let space = spaces.get(name)
    if (!space) {
      space = { entries: new Map(), versions: new Map() }
      spaces.set(name, space)
    }
    return space
  }
  const copy = (entry: ConclaveEntry): ConclaveEntry => structuredClone(entry)
  return {
    async read(name, key) {
      const entry = spaces.get(name)?.entries.get(key)
      return entry ? copy(entry) : null
    },
    async write(name, key, value, options) {
      const json = checkConclaveWrite(key, value, bounds)
      const space = spaceOf(name)
      const current = space.versions.get(key) ?? 0
      const live = space.entries.get(key)?.version ?? 0
      checkIfVersion(key, options.ifVersion, live)
      if (!space.entries.has(key)) checkConclaveRoom(key, space.entries.size, bounds)
      const entry: ConclaveEntry = {
        value: JSON.parse(json),
        writtenBy: options.writtenBy,
        version: current + 1,
        updatedAt: new Date().toISOString(),
      }
      space.entries.set(key, entry)
      space.versions.set(key, entry.version)
      return copy(entry)
    },
    async delete(name, key, options = {}) {
      const space = spaces.get(name)
      const live = space?.entries.get(key)?.version ?? 0
      checkIfVersion(key, options.ifVersion, live)
      return space?.entries.delete(key) ?? false
    },
    async list(name) {
      return [...(spaces.get(name)?.entries.keys() ?? [])].sort()
    },
    async expire(name, afterMs) {
      const space = spaces.get(name)
      if (!space) return
      if (space.timer) clearTimeout(space.timer)
      if (afterMs <= 0) {
        spaces.delete(name)
        return
      }
      space.timer = setTimeout(() => spaces.delete(name), afterMs)
      space.timer.unref?.()
    },
  }
}
