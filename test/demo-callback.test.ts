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
});
