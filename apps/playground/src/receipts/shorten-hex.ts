/**
 * A long hex value (an address, a hash) as its first and last few digits, for a label whose
 * full value sits in its title and copy button.
 *
 * @example
 * shortenHex('0x52908400098527886E0F7030069857D2E4169EE7') // '0x5290…9EE7'
 */
export function shortenHex(value: string, digits = 4): string {
  if (value.length <= 2 + digits * 2 + 1) return value
  return `${value.slice(0, 2 + digits)}…${value.slice(-digits)}`
}
