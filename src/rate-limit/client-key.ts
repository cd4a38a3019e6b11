import ipaddr from 'ipaddr.js';

/**
 * What the per-client limits (the portal's, failed authentications) count by: an IPv4 address, or the /64 of an IPv6
 * address. One IPv6 subscriber usually holds a whole /64, so counting single addresses would
 * let one client rotate through billions of them. IPv4-mapped IPv6 (`::ffff:192.0.2.1`, how a
 * dual-stack socket reports an IPv4 client) counts as the IPv4 address it carries.
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const addr = ipaddr.process(ip);
  if (addr.kind() === 'ipv4') return addr.toString();
  const prefix = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${prefix.join(':')}::/64`;
}
