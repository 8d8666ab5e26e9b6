export {
  type CreateInMemoryMemoryStoreOptions,
  createInMemoryMemoryStore,
} from './create-in-memory-memory-store'
export type { MemoryEntry, MemoryStore } from './types'
