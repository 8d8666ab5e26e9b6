import { ValidationError } from '../errors/baton-error'
import type { ChildOptions } from './budget-types'
import { hasMember, type OneOrMore, withMember } from './one-or-more'

const SLASH = 47 // '/'

/**
 * The names of one budget's children, unique among siblings: explicit names as given (or
 * numbered, `name#2`, when taken and `ifTaken: 'number'`), automatic ones `{parent}/{n}`.
 *
 * @example
 * const names = new ChildNames('root')
 * names.take(undefined) // 'root/1'
 * names.take(names.explicit({ name: 'review' })) // 'review'
 */
export class ChildNames {
  readonly #parentName: string
  /** The names given explicitly to its children, which neither siblings nor automatic names reuse. */
  #takenNames: OneOrMore<string>
  /** The numbers explicit children took: `{name}/{n}` for any other n ≤ the count is automatic. */
  #explicitNumbers: OneOrMore<number>
  /** Per name numbered because it was taken: the next number to try, so a loop costs O(1). */
  #nextNumber: Map<string, number> | undefined
  #count = 0

  constructor(parentName: string) {
    this.#parentName = parentName
  }

  /**
   * The explicit name a child gets: as given, or numbered (`name#2`, ...) when a sibling has it
   * and `ifTaken` says so. A taken name is otherwise a `ValidationError` naming the parent.
   */
  explicit(options: ChildOptions): string {
    const { name, ifTaken = 'refuse' } = options
    if (typeof name !== 'string' || name.length === 0) {
      throw new ValidationError('budget child options', [
        {
          path: 'name',
          message: `must be a non-empty string (child of budget "${this.#parentName}")`,
        },
      ])
    }
    if (ifTaken !== 'refuse' && ifTaken !== 'number') {
      throw new ValidationError('budget child options', [
        { path: 'ifTaken', message: 'must be "refuse" or "number"' },
      ])
    }
    if (!this.#isTaken(name)) return name
    if (ifTaken === 'refuse') {
      throw new ValidationError('budget child options', [
        {
          path: 'name',
          message: `budget "${this.#parentName}" already has a child named "${name}"; each child's name is unique among its siblings`,
        },
      ])
    }
    this.#nextNumber ??= new Map()
    let number = this.#nextNumber.get(name) ?? 2
    while (this.#isTaken(`${name}#${number}`)) number += 1
    this.#nextNumber.set(name, number + 1)
    return `${name}#${number}`
  }

  /** Whether a child of this budget was given `name`, explicitly or automatically. */
  #isTaken(name: string): boolean {
    if (hasMember(this.#takenNames, name)) return true
    // An automatic name is `{parent}/{n}`. The character before the number is tried first: a
    // sub-agent's name shares its parent's long prefix (`root/1.1.1` under `root/1.1`), and
    // comparing that whole prefix, then building it, cost O(depth) per child of a deep tree.
    const parent = this.#parentName
    // Lengths first: reading any character of a name built by concatenation makes V8 copy it
    // into one flat string, held as long as the budget. In a deep tree each name is as long as
    // the depth, so a copy per level is O(depth²) memory for the tree, for names that cannot
    // be automatic anyway (none taken yet, or longer than `{parent}/{count}`).
    const numberLength = name.length - parent.length - 1
    if (numberLength < 1 || numberLength > digitsOf(this.#count)) return false
    if (name.charCodeAt(parent.length) !== SLASH || !name.startsWith(parent)) return false
    const digits = name.slice(parent.length + 1)
    if (!/^[1-9]\d*$/.test(digits)) return false
    const number = Number(digits)
    // Every child took a number; those explicit children took were not given as names.
    return number <= this.#count && !hasMember(this.#explicitNumbers, number)
  }

  /**
   * An explicit name (checked already) is used as given; an automatic one is the parent's name
   * and the next number no sibling's name (explicit or automatic) already has.
   */
  take(explicit: string | undefined): string {
    // Every child takes a number, so an automatic name says which child it was.
    this.#count += 1
    if (explicit !== undefined) {
      this.#takenNames = withMember(this.#takenNames, explicit)
      this.#explicitNumbers = withMember(this.#explicitNumbers, this.#count)
      return explicit
    }
    // The counter only grows, so automatic names never collide with each other; only an
    // explicit name of the automatic shape can be in the way.
    let name = `${this.#parentName}/${this.#count}`
    while (hasMember(this.#takenNames, name)) {
      this.#count += 1
      name = `${this.#parentName}/${this.#count}`
    }
    return name
  }
}

/** How many decimal digits `count` has (0 for 0, so that nothing fits before the first child). */
function digitsOf(count: number): number {
  let digits = 0
  for (let rest = count; rest >= 1; rest /= 10) digits += 1
  return digits
}
