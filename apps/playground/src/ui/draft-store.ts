import { create } from 'zustand'

type DraftState = { draft: string; setDraft: (draft: string) => void }

/**
 * The chat box's text, shared so a card's example can fill it (page state, not server state).
 *
 * @example
 * useDraftStore.getState().setDraft('@Analyst compare Q1 and Q2')
 */
export const useDraftStore = create<DraftState>()((set) => ({
  draft: '',
  setDraft: (draft) => set({ draft }),
}))
