import ipaddr from 'ipaddr.js';

/**
 * Whether an IP address is publicly routable, the test a webhook target must pass (so a
 * consumer's URL cannot reach our own network; smokescreen and Svix do the same). An allow-list, not a block-list: only
 * ipaddr.js's `unicast` range counts, and for IPv6 only inside global unicast 2000::/3, so
 * loopback, private, link-local (cloud metadata), CGNAT, multicast, documentation, benchmarking,
 * NAT64, 6to4, Teredo, ORCHID, IPv4-compatible and every other special range are refused.
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry, which is where a socket
 * to them goes.
 */
export function isPublicAddress(address: string): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  if (ip.kind() === 'ipv4') return ip.range() === 'unicast';
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST);
}

const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** The address as ipaddr.js parses it: only the canonical dotted-quad for IPv4, any valid IPv6. */
function parseIp(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // A zone index (fe80::1%eth0) only ever names a link-local address: never public.
  if (bare.includes('%')) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  return null;
}

/** True when `host` (a URL's hostname, brackets allowed) is an IP literal rather than a name. */
export function isIpLiteral(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.isValid(bare);
}
