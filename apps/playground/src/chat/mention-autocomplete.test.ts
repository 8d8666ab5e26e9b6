import { describe, expect, it } from 'vitest'
import { agents, analyst, ops, orchestrator, reviewer } from '../__fixtures__/agents'
import { applyMention, findMentionQuery, suggestMentions } from './mention-autocomplete'

describe('findMentionQuery', () => {
  it('finds the mention being typed at the caret, spaces included', () => {
    expect(findMentionQuery('ask @Ops Or', 11)).toEqual({ start: 4, query: 'Ops Or' })
    expect(findMentionQuery('@', 1)).toEqual({ start: 0, query: '' })
  })

  it('does not take an e-mail address, another line, or text after the caret for a mention', () => {
    expect(findMentionQuery('mail ops@exa', 12)).toBeUndefined()
    expect(findMentionQuery('@Ops\nnext', 9)).toBeUndefined()
    expect(findMentionQuery('hello @rev and more', 5)).toBeUndefined()
  })
})

describe('suggestMentions', () => {
  it('puts names that start with the query before names with a word that does', () => {
    expect(suggestMentions(agents, 'ops')).toEqual([orchestrator, ops])
    expect(suggestMentions(agents, 'an')).toEqual([analyst])
    expect(suggestMentions(agents, 'analyst')).toEqual([analyst])
  })

  it('lists everything for a bare @ and nothing for a query no agent fits', () => {
    expect(suggestMentions(agents, '')).toEqual(agents)
    expect(suggestMentions(agents, 'zzz')).toEqual([])
  })

  it('finds by id and by a word inside the name', () => {
    expect(suggestMentions(agents, 'orch')).toEqual([orchestrator])
    expect(suggestMentions(agents, 'view')).toEqual([reviewer])
  })
})

describe('applyMention', () => {
  it('replaces the partial mention with the full name and puts the caret after it', () => {
    const text = 'ask @rev now'
    const next = applyMention(text, findMentionQuery(text, 8)!, reviewer)
    expect(next).toEqual({ text: 'ask @Reviewer now', caret: 14 })
  })

  it('adds no space before punctuation or a space that follows already', () => {
    const comma = 'ask @rev, now'
    expect(applyMention(comma, findMentionQuery(comma, 8)!, reviewer).text).toBe(
      'ask @Reviewer, now',
    )
    expect(applyMention('@rev x', { start: 0, query: 'rev ' }, reviewer).text).toBe('@Reviewer x')
  })

  it('adds a space after a mention at the end', () => {
    expect(applyMention('@ops o', { start: 0, query: 'ops o' }, orchestrator)).toEqual({
      text: '@Ops Orchestrator ',
      caret: 18,
    })
  })
})
