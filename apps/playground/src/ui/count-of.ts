/**
 * `count` things in words, the noun made plural unless there is one: `1 member`, `3 members`,
 * `0 votes`. (Every noun the playground counts takes an `s`.)
 *
 * @example
 * countOf(1, 'member') // '1 member'
 */
export function countOf(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`
}
