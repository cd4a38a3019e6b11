import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newPkce, newSecret, s256 } from '../../src/consent/secrets.ts';
import { sha256Hex } from '../../src/crypto.ts';

describe('one-time secrets of the consent flow are unguessable', () => {
  it('10,000 confirmation codes: 256-bit base64url, all different, stored as their SHA-256', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const { value, hash } = newSecret();
      expect(value).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      expect(hash).toBe(sha256Hex(value));
      seen.add(value);
    }
    expect(seen.size).toBe(10_000);
  });

  it('PKCE: the S256 challenge of the verifier (RFC 7636 appendix B example)', () => {
    expect(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    const { verifier, challenge } = newPkce();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(challenge).toBe(s256(verifier));
  });

  it('no consent or simulated-server module uses Math.random', () => {
    const root = join(import.meta.dirname, '..', '..', 'src');
    const files = ['consent', 'http/pages', 'virtual/oem', 'routes/consent', 'routes/consent/pages'].flatMap((dir) =>
      readdirSync(join(root, dir))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(root, dir, f)),
    );
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) expect(readFileSync(f, 'utf8'), f).not.toContain('Math.random');
  });
});
