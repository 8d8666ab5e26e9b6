// Random bytes for 256 ids at a time, from the platform's CSPRNG (as `randomUUID` buffers its own).
const random = new Uint8Array(4096)
let taken = random.length
// The id's characters, written here and decoded once into a flat string. `randomUUID` builds
// its string by concatenation: a tree of ~20 string pieces per id that a bus keeping tens of
// thousands of ids (its history, its loop guard) held on to and the collector copied again and
// again, about 0.5 KiB and over a microsecond per id.
const characters = new Uint8Array(128)
const decoder = new TextDecoder()
const HEX = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0))
const DASH = '-'.charCodeAt(0)
const UNDERSCORE = '_'.charCodeAt(0)

/**
 * A random, collision-safe id with a readable prefix: `<prefix>_` and a version 4 UUID.
 *
 * @example
 * newId('corr') // 'corr_4f0c…'
 */
export function newId(prefix: string): string {
  if (prefix.length > 64) return slowId(prefix)
  if (taken + 16 > random.length) {
    globalThis.crypto.getRandomValues(random)
    taken = 0
  }
  let at = 0
  for (let index = 0; index < prefix.length; index += 1) {
    const code = prefix.charCodeAt(index)
    // Only printable ASCII is one byte in UTF-8; anything else takes the plain way.
    if (code < 0x20 || code > 0x7e) return slowId(prefix)
    characters[at++] = code
  }
  characters[at++] = UNDERSCORE
  for (let index = 0; index < 16; index += 1) {
    let byte = random[taken + index]!
    // The version (4) and variant (10xx) bits of a random UUID.
    if (index === 6) byte = (byte & 0x0f) | 0x40
    else if (index === 8) byte = (byte & 0x3f) | 0x80
    if (index === 4 || index === 6 || index === 8 || index === 10) characters[at++] = DASH
    characters[at++] = HEX[byte >> 4]!
    characters[at++] = HEX[byte & 15]!
  }
  taken += 16
  return decoder.decode(characters.subarray(0, at))
}

function slowId(prefix: string): string {
  return `${prefix}_${globalThis.crypto.randomUUID()}`
}
