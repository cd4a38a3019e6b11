import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/push/ssrf/ip.ts';

// After smokescreen's classification table (pkg/smokescreen/smokescreen_test.go) and the
// SSRF protection's list of ranges.
const NOT_PUBLIC = [
  '0.0.0.0', '0.1.2.3', '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255',
  '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.255', '224.0.0.1', '239.255.255.250',
  '255.255.255.255', '192.0.0.8', '192.0.2.1', '198.51.100.7', '203.0.113.9', '198.18.0.1', '240.0.0.1',
  '::', '::1', 'fe80::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', 'fec0::1',
  '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254',
  '64:ff9b::7f00:1', '64:ff9b::808:808', '2002:7f00:1::', '2002:0808:0808::1', '2001:0:4136:e378::1',
  '2001:db8::1', '::127.0.0.1', '100::1', '[::1]', 'fe80::1%eth0', 'not-an-ip', '2130706433', '0177.0.0.1', '127.1',
];
const PUBLIC = ['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '[2606:4700::1]'];

describe('SSRF address classification', () => {
  it.each(NOT_PUBLIC)('%s is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });
  it.each(PUBLIC)('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});
