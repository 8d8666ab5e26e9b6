import { describe, expect, it } from 'vitest'
import { analyst, critic, makeAgent, ops, opsOrchestrator } from '../__fixtures__/agents'
import { parseMentions } from './parse-mentions'

const agents = [analyst, critic, ops, opsOrchestrator]

describe('parseMentions', () => {
  it('finds a mention by name and returns the rest as the task', () => {
    expect(parseMentions('@Analyst compare Q1 and Q2', agents)).toEqual({
      targets: [analyst],
      task: 'compare Q1 and Q2',
    })
  })

  it('lets the longest multi-word name win over a shorter one it starts with', () => {
    const parsed = parseMentions('@Ops Orchestrator review yesterday’s incidents', agents)
    expect(parsed.targets).toEqual([opsOrchestrator])
    expect(parsed.task).toBe('review yesterday’s incidents')
  })

  it('falls back to the shorter name when the longer one does not follow', () => {
    const parsed = parseMentions('@Ops restart the worker', agents)
    expect(parsed.targets).toEqual([ops])
    expect(parsed.task).toBe('restart the worker')
  })

  it('ignores case', () => {
    expect(parseMentions('@ops orchestrator go', agents).targets).toEqual([opsOrchestrator])
    expect(parseMentions('@ANALYST go', agents).targets).toEqual([analyst])
  })

  it('finds a mention by id', () => {
    expect(parseMentions('ask @ops-bot to page someone', agents)).toEqual({
      targets: [ops],
      task: 'ask to page someone',
    })
  })

  it('accepts punctuation right after the name and drops a separator comma or colon', () => {
    expect(parseMentions('@Analyst: summarise', agents).task).toBe('summarise')
    expect(parseMentions('@Analyst, summarise', agents).task).toBe('summarise')
    expect(parseMentions('can you help @Critic?', agents)).toEqual({
      targets: [critic],
      task: 'can you help?',
    })
    expect(parseMentions('thanks @Critic.', agents).task).toBe('thanks.')
  })

  it('does not take an e-mail address for a mention', () => {
    const parsed = parseMentions('mail ops@example.com and analyst@ops-bot.io', agents)
    expect(parsed.targets).toEqual([])
    expect(parsed.task).toBe('mail ops@example.com and analyst@ops-bot.io')
  })

  it('does not take the domain of an e-mail address for a mention even when it names an agent', () => {
    const site = makeAgent({ id: 'site', name: 'example.com' })
    const known = [...agents, site]
    expect(parseMentions('mail ops@example.com, or root@analyst', known)).toEqual({
      targets: [],
      task: 'mail ops@example.com, or root@analyst',
    })
    expect(parseMentions('(@Analyst) and "@example.com" check', known).targets).toEqual([
      analyst,
      site,
    ])
  })

  it('does not match a name that continues into a longer word', () => {
    expect(parseMentions('@Analysts unite', agents).targets).toEqual([])
    expect(parseMentions('@ops-bot2 hi', agents).targets).toEqual([])
    expect(parseMentions('@ops-bot.example hi', agents).targets).toEqual([])
  })

  it('keeps unknown mentions in the task', () => {
    expect(parseMentions('@Nobody and @Analyst do it', agents)).toEqual({
      targets: [analyst],
      task: '@Nobody and do it',
    })
  })

  it('returns several targets once each, in the order first mentioned', () => {
    const parsed = parseMentions('@Critic @Analyst compare, then @critic again', agents)
    expect(parsed.targets).toEqual([critic, analyst])
    expect(parsed.task).toBe('compare, then again')
  })

  it('matches names whose words are separated by several spaces or contain regex characters', () => {
    const odd = makeAgent({ id: 'odd', name: 'C++ (Legacy) Bot' })
    expect(parseMentions('@c++ (legacy)   bot port it', [odd])).toEqual({
      targets: [odd],
      task: 'port it',
    })
    expect(parseMentions('@Ops   Orchestrator   go', agents).targets).toEqual([opsOrchestrator])
  })

  it('keeps line breaks of the task and returns an empty task for a bare mention', () => {
    expect(parseMentions('@Analyst\nline one\nline two', agents).task).toBe('line one\nline two')
    expect(parseMentions('  @Analyst  ', agents)).toEqual({ targets: [analyst], task: '' })
  })

  it('sees an agent added to a list it has already read', () => {
    const list = [analyst]
    expect(parseMentions('@Critic go', list).targets).toEqual([])
    list.push(critic)
    expect(parseMentions('@Critic go', list).targets).toEqual([critic])
    list[0] = ops
    expect(parseMentions('@Analyst go', list).targets).toEqual([])
  })

  it('refuses text that is not a string, or agents that are not a list, naming the argument', () => {
    const parse = parseMentions as (text: unknown, agents: unknown) => unknown
    expect(() => parse(undefined, agents)).toThrow(
      /Invalid parseMentions arguments: text: must be a string/,
    )
    expect(() => parse('@Analyst hi', null)).toThrow(/agents: must be a list of agents/)
  })

  it('returns no targets and the trimmed text when there are no agents', () => {
    expect(parseMentions('  @Analyst hi ', [])).toEqual({ targets: [], task: '@Analyst hi' })
  })
})
