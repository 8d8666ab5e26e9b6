import type { MemoryEntry } from '@baton/core'
import { z } from 'zod'
import type { StoredMemoryEntry } from '../db/memory-repository'
import type { InvalidationTopics } from '../scale/share-registry-invalidation'
import type { CachedMemoryStore } from './cache-memory-store'

// Topics of the invalidation channel: a scope to read again, or entries to add to its copy.
const droppedTopic = 'memory'
const appendedTopic = 'memory-appended'
// Larger appends are announced as a scope to read again: every process receives them.
const maxAppendedCharacters = 64 * 1024

/**
 * What a memory write of this process tells the others, as a topic and a key of the
 * invalidation channel: the appended entries with their ids (each other process adds them to
 * its copy, so an agent whose runs go to every process is not read again at every run), or,
 * for a clear or a large append, the scope alone (each other process drops its copy).
 *
 * @example
 * const { topic, key } = memoryAnnouncement('analyst', stored)
 * await shared.announce(topic, key)
 */
export function memoryAnnouncement(
  scope: string,
  appended: StoredMemoryEntry[] | undefined,
): { topic: string; key: string } {
  if (appended) {
    const key = JSON.stringify({ scope, appended })
    if (key.length <= maxAppendedCharacters) return { topic: appendedTopic, key }
  }
  return { topic: droppedTopic, key: scope }
}

/**
 * The invalidation channel's handlers of what other processes announced with
 * `memoryAnnouncement`. A message that does not read as an append, or none (anything may have
 * changed), drops every copy.
 *
 * @example
 * await scale.shareRegistry(registry, { ...memoryTopics(cachedMemory) })
 */
export function memoryTopics(cached: CachedMemoryStore): InvalidationTopics {
  return {
    [droppedTopic]: (scope) => cached.invalidate(scope),
    [appendedTopic]: (key) => {
      const announced = key === undefined ? undefined : readAppended(key)
      if (announced) cached.appended(announced.scope, announced.appended)
      else cached.invalidate()
    },
  }
}

// What another process announced; a malformed one drops every copy instead.
const Appended = z.object({
  scope: z.string(),
  appended: z.array(
    z.object({
      id: z.number().int(),
      entry: z.custom<MemoryEntry>((entry) => typeof entry === 'object' && entry !== null),
    }),
  ),
})

function readAppended(key: string): z.output<typeof Appended> | undefined {
  try {
    const parsed = Appended.safeParse(JSON.parse(key))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}
