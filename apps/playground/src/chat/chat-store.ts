import type { DelegationResult } from '@baton/surface'
import { create } from 'zustand'

export type ChatEntry =
  | { id: number; kind: 'me'; text: string }
  | { id: number; kind: 'note'; text: string }
  | { id: number; kind: 'outcome'; targetName: string; result: DelegationResult }

type NewChatEntry = ChatEntry extends infer Entry
  ? Entry extends ChatEntry
    ? Omit<Entry, 'id'>
    : never
  : never

type ChatState = {
  entries: ChatEntry[]
  add: (entry: NewChatEntry) => void
}

let nextId = 1

/**
 * What this page's chat shows (kept across view changes; the conversations themselves are
 * the server's, read through the communication store).
 *
 * @example
 * useChatStore.getState().add({ kind: 'me', text: '@Analyst hi' })
 */
export const useChatStore = create<ChatState>()((set) => ({
  entries: [],
  add: (entry) =>
    set((state) => ({ entries: [...state.entries, { ...entry, id: nextId++ } as ChatEntry] })),
}))
