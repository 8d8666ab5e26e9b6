export type MemoryEntry = {
  role: 'user' | 'assistant' | 'note'
  content: string
  /** Wallet of the agent that wrote it. */
  wallet?: string
  createdAt: string
}

/** Memory keyed by scope (an agent's `memoryScope`). The server brings a database one. */
export interface MemoryStore {
  read(scope: string, options?: { limit?: number }): Promise<MemoryEntry[]>
  append(scope: string, entries: MemoryEntry[]): Promise<void>
  clear(scope: string): Promise<void>
}
