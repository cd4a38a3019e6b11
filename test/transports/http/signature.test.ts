import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from '../../../src/transports/http/signature.ts';
import { topicMatcher } from '../../../src/adapters/topics.ts';

const NOW = Date.parse('2026-11-25T10:00:00Z');
const T = NOW / 1000;

describe('HTTP ingest signature', () => {
  it('accepts the signature of these exact bytes within the window, and nothing else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.string({ minLength: 1 }), fc.integer({ min: -300, max: 300 }), (bytes, secret, skew) => {
        const body = Buffer.from(bytes);
        const header = signBody(secret, T + skew, body);
        expect(verifySignature(header, body, secret, NOW, 300)).toEqual({ ok: true });
        expect(verifySignature(header, Buffer.concat([body, Buffer.from('x')]), secret, NOW, 300)).toEqual({ ok: false, reason: 'mismatch' });
        expect(verifySignature(header, body, `${secret}x`, NOW, 300)).toEqual({ ok: false, reason: 'mismatch' });
      }),
    );
  });

  it('refuses a stale or future timestamp, a missing or malformed header, and accepts a second v1 while rotating', () => {
    const body = Buffer.from('{"records":[]}');
    expect(verifySignature(signBody('s', T - 301, body), body, 's', NOW, 300)).toEqual({ ok: false, reason: 'expired' });
    expect(verifySignature(signBody('s', T + 301, body), body, 's', NOW, 300)).toEqual({ ok: false, reason: 'expired' });
    expect(verifySignature(undefined, body, 's', NOW, 300)).toEqual({ ok: false, reason: 'missing' });
    for (const bad of ['sha256=abc', `t=${T}`, 'v1=00', `t=x,v1=${'0'.repeat(64)}`]) expect(verifySignature(bad, body, 's', NOW, 300)).toEqual({ ok: false, reason: 'malformed' });
    const oldAndNew = `${signBody('old', T, body)},v1=${signBody('new', T, body).split('v1=')[1]}`;
    expect(verifySignature(oldAndNew, body, 'new', NOW, 300)).toEqual({ ok: true });
  });
});

describe('MQTT topic namespace', () => {
  it('matches only the manifest filters, level by level', () => {
    const allowed = topicMatcher(['virtual/v1/+/telemetry', 'virtual/v1/+/event']);
    expect(allowed('virtual/v1/V1RTUALV1N0000001/telemetry')).toBe(true);
    expect(allowed('virtual/v1/V1RTUALV1N0000001/event')).toBe(true);
    for (const t of ['virtual/v1/telemetry', 'virtual/v1/a/b/telemetry', 'virtual/v2/X/telemetry', '$SYS/virtual/v1/X/event', 'virtual/v1/X/telemetryx', 'virtualXv1/X/event', 'virtual/v1/+/event']) {
      expect(allowed(t), t).toBe(false);
    }
  });
});
