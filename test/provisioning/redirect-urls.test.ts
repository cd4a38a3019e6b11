import { describe, expect, it } from 'vitest';
import { checkRedirectUrls, redirectUrlProblem } from '../../src/provisioning/index.ts';
import { ApiError } from '../../src/errors.ts';

describe('redirect URL whitelist rules (RFC 9700 §2.6, RFC 6749 §3.1.2, RFC 8252)', () => {
  it.each([
    'https://app.example.com/callback',
    'https://app.example.com:8443/cb?tenant=1',
    'http://localhost:3000/cb',
    'http://127.0.0.1:8080/cb',
    'http://[::1]:9000/cb',
    'HTTPS://APP.EXAMPLE.COM/cb',
  ])('accepts %s', (url) => {
    expect(redirectUrlProblem(url)).toBeNull();
  });

  it.each([
    ['http://app.example.com/cb', /https/],
    ['http://10.0.0.1/cb', /https/],
    ['http://localhost.evil.com/cb', /https/],
    ['javascript:alert(1)', /absolute https/],
    ['data:text/html,<script>alert(1)</script>', /absolute https/],
    ['/relative/cb', /absolute https/],
    ['app.example.com/cb', /absolute https/],
    ['https:app.example.com/cb', /absolute https/],
    ['//app.example.com/cb', /absolute https/],
    ['ftp://app.example.com/cb', /absolute https/],
    ['https://app.example.com/cb#frag', /fragment/],
    ['https://app.example.com/cb#', /fragment/],
    ['https://user:pass@app.example.com/cb', /credentials/],
    [' https://app.example.com/cb', /whitespace/],
    ['https://app.example.com/c b', /whitespace/],
    ['https://app.example.com/cb\n', /whitespace/],
    ['https://', /not a valid URL/],
    ['', /1 to 2048/],
    [`https://app.example.com/${'a'.repeat(2100)}`, /1 to 2048/],
  ])('refuses %j', (url, why) => {
    expect(redirectUrlProblem(url)).toMatch(why);
  });

  it('keeps the exact strings (the portal compares character for character) and drops duplicates', () => {
    expect(checkRedirectUrls(['https://a.example.com', 'https://a.example.com', 'https://b.example.com/x'])).toEqual([
      'https://a.example.com',
      'https://b.example.com/x',
    ]);
    expect(checkRedirectUrls(undefined)).toEqual([]);
  });

  it('names every bad entry in one 400', () => {
    let caught: unknown;
    try {
      checkRedirectUrls(['https://ok.example.com', 'http://evil.example.com', 'javascript:alert(1)']);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).statusCode).toBe(400);
    expect((caught as ApiError).reasonText).toContain('http://evil.example.com');
    expect((caught as ApiError).reasonText).toContain('javascript:alert(1)');
    expect((caught as ApiError).reasonText).not.toContain('ok.example.com');
  });
});
