import { describe, expect, it } from 'vitest';
import type { Resolver } from '../../src/push/ssrf/resolver.ts';
import { checkWebhookUrl } from '../../src/push/ssrf/url.ts';

/** A DNS that knows a few names; anything else does not resolve. */
const dns: Resolver = async (name) => {
  const table: Record<string, string[]> = {
    'hooks.example.com': ['93.184.216.34'],
    'dual.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'internal.example.com': ['10.1.2.3'],
    'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'v6loop.example.com': ['::1'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
  };
  const addresses = table[name];
  if (!addresses) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const strict = { allowPrivate: false, resolve: dns };

describe('webhook URL check at registration', () => {
  it.each([
    'http://2130706433/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://127.1/',
    'https://0x7f.0.0.1/',
    'https://127.0.0.1:8443/hook',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[64:ff9b::7f00:1]/',
    'https://[2002:7f00:1::]/',
    'https://[fe80::1]/',
    'https://[fd00::1]/',
    'https://localhost/',
    'https://LOCALHOST./',
    'https://api.localhost/',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/',
    'https://192.168.0.10/',
    'https://172.20.1.1/',
    'https://100.64.1.1/',
    'https://0.0.0.0/',
    'https://internal.example.com/',
    'https://mixed.example.com/',
    'https://metadata.example.com/',
    'https://v6loop.example.com/',
    'https://mapped.example.com/',
  ])('refuses %s', async (url) => {
    const res = await checkWebhookUrl(url, strict);
    expect(res.ok).toBe(false);
  });

  it.each([
    ['http://hooks.example.com/in', 'https'],
    ['ftp://hooks.example.com/in', 'https'],
    ['https://user:pw@hooks.example.com/in', 'credentials'],
    ['https://hooks.example.com/in#frag', 'fragment'],
    ['https://nowhere.example.com/', 'does not resolve'],
    ['not a url', 'valid absolute URL'],
    [`https://hooks.example.com/${'a'.repeat(2100)}`, 'longer'],
  ])('refuses %s with a reason naming %s', async (url, reason) => {
    const res = await checkWebhookUrl(url, strict);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.reason).toContain(reason);
  });

  it.each(['https://hooks.example.com/in', 'https://dual.example.com:8443/a?b=c', 'https://93.184.216.34/x', 'https://[2606:4700:4700::1111]/'])(
    'accepts %s',
    async (url) => {
      const res = await checkWebhookUrl(url, strict);
      expect(res).toMatchObject({ ok: true });
    },
  );

  it('allows loopback and plain http only when PUSH_ALLOW_PRIVATE_TARGETS says so', async () => {
    expect((await checkWebhookUrl('http://127.0.0.1:9999/hooks', strict)).ok).toBe(false);
    expect((await checkWebhookUrl('http://127.0.0.1:9999/hooks', { allowPrivate: true, resolve: dns })).ok).toBe(true);
    expect((await checkWebhookUrl('http://localhost:9999/', { allowPrivate: true, resolve: async () => [{ address: '127.0.0.1', family: 4 }] })).ok).toBe(true);
    expect((await checkWebhookUrl('ftp://127.0.0.1/', { allowPrivate: true, resolve: dns })).ok).toBe(false);
  });
});
