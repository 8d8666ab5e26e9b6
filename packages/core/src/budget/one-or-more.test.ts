import { describe, expect, it } from 'vitest'
import { hasMember, membersOf, type OneOrMore, sizeOf, withMember } from './one-or-more'

describe('OneOrMore', () => {
  it('keeps one member as it is, and several in a set that keeps growing', () => {
    let members: OneOrMore<string>
    expect([sizeOf(members), [...membersOf(members)]]).toEqual([0, []])
    expect(hasMember(members, 'a')).toBe(false)
    members = withMember(members, 'a')
    expect(members).toBe('a')
    expect(withMember(members, 'a')).toBe('a')
    members = withMember(members, 'b')
    expect(members).toBeInstanceOf(Set)
    const set = members
    members = withMember(members, 'c')
    expect(members).toBe(set)
    expect([sizeOf(members), [...membersOf(members)]]).toEqual([3, ['a', 'b', 'c']])
    expect([hasMember(members, 'b'), hasMember(members, 'd')]).toEqual([true, false])
  })

  it('tells members apart by identity, as a set does', () => {
    const first = { name: 'x' }
    const same = { name: 'x' }
    const members = withMember(withMember(undefined, first), same)
    expect(sizeOf(members)).toBe(2)
    expect(hasMember(withMember(undefined, first), same)).toBe(false)
  })
})
