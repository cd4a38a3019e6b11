import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';

describe('/demo/callback (the demo consumer application)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.cleanup());

  it('shows the consent id and the confirmation call to make next', async () => {
    const res = await t.app.inject('/demo/callback?code=abc123&consent_id=c-1');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Consent c-1 is active');
    expect(res.body).toContain('/api/consent/provisioning/confirmation/abc123');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });

  it('shows an error and escapes what it echoes', async () => {
    const res = await t.app.inject('/demo/callback?error=rejected&error_description=%3Cscript%3Ex%3C%2Fscript%3E');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('rejected');
    expect(res.body).not.toContain('<script>');
    expect(res.body).toContain('&#60;script&#62;');
  });

  it('shows the first value of a parameter given twice (the fuzz counterexample was a 500)', async () => {
    const empty = await t.app.inject('/demo/callback?consent_id=&consent_id=');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('Consent (none) is active');
    const twice = await t.app.inject('/demo/callback?code=first&code=second&consent_id=c-1&consent_id=c-2');
    expect(twice.statusCode).toBe(200);
    expect(twice.body).toContain('Consent c-1 is active');
    expect(twice.body).toContain('/confirmation/first');
    expect(twice.body).not.toContain('/confirmation/second');
    expect(twice.body).not.toContain('c-2');
  });
});
