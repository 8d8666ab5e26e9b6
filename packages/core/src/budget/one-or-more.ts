/**
 * A set kept as its one member until a second joins, then as a `Set`. Most budgets have one
 * child, one child waiting to be rolled up and one explicit child name: a `Set` for each was
 * ~170 bytes and two objects of every level of a deep tree, alive as long as the level waits.
 * For members that are not sets themselves.
 *
 * @example
 * let members: OneOrMore<string>
 * members = withMember(members, 'a') // 'a'
 * members = withMember(members, 'b') // Set { 'a', 'b' }
 * hasMember(members, 'b') // true
 */
export type OneOrMore<T> = T | Set<T> | undefined

export function withMember<T>(members: OneOrMore<T>, member: T): OneOrMore<T> {
  if (members === undefined || members === member) return member
  if (members instanceof Set) return members.add(member)
  return new Set([members as T, member])
}

export function hasMember<T>(members: OneOrMore<T>, member: T): boolean {
  if (members instanceof Set) return members.has(member)
  return members !== undefined && members === member
}

export function sizeOf<T>(members: OneOrMore<T>): number {
  if (members instanceof Set) return members.size
  return members === undefined ? 0 : 1
}

/** The members, to iterate over (a copy for one member: not for a hot path). */
export function membersOf<T>(members: OneOrMore<T>): Iterable<T> {
  if (members instanceof Set) return members
  return members === undefined ? [] : [members as T]
}
