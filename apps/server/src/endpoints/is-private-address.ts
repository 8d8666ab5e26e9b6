import { BlockList, isIP } from 'node:net'

// Loopback, private, shared (CGNAT), link-local (cloud metadata at 169.254.169.254),
// documentation, benchmarking, multicast and reserved: nowhere an agent on the internet lives.
const refused = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  refused.addSubnet(network, prefix, 'ipv4')
}
// Unspecified, loopback, unique-local (fc00::/7, AWS's fd00:ec2::254 too), link-local,
// site-local, documentation, multicast.
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['2001:db8::', 32],
  ['ff00::', 8],
] as const) {
  refused.addSubnet(network, prefix, 'ipv6')
}

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '')
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number]
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined]
  const headGroups = head ? head.split(':') : []
  const tailGroups = tail ? tail.split(':') : []
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length
  return [...headGroups, ...Array(missing).fill('0'), ...tailGroups].map((group) =>
    Number.parseInt(group, 16),
  )
}

/** The IPv4 address an IPv6 one carries (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64), if any. */
function embeddedIpv4(groups: number[]): string | undefined {
  const v4 = () =>
    [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.')
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0)
  if (zeros(0, 5) && groups[5] === 0xffff) return v4()
  if (zeros(0, 6)) return v4()
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4()
  return undefined
}

/**
 * True for an address no agent endpoint may be reached at: loopback, private, shared,
 * link-local (cloud metadata), unique-local, multicast and reserved ranges, in IPv4 and
 * IPv6 alike, an IPv4 address inside an IPv6 one (`::ffff:127.0.0.1`) judged as that IPv4
 * address. Anything that is not an IP address is refused too.
 *
 * @example
 * isPrivateAddress('169.254.169.254') // true
 * isPrivateAddress('::ffff:7f00:1') // true
 * isPrivateAddress('93.184.216.34') // false
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''))
  if (family === 4) return refused.check(address, 'ipv4')
  if (family !== 6) return true
  const groups = ipv6Groups(address)
  if (groups.length !== 8 || groups.some((group) => Number.isNaN(group))) return true
  const inner = embeddedIpv4(groups)
  if (inner !== undefined) return refused.check(inner, 'ipv4')
  const canonical = groups.map((group) => group.toString(16)).join(':')
  return refused.check(canonical, 'ipv6')
}
