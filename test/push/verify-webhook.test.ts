import { Webhook } from 'standardwebhooks';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newSigningSecret, secretKey, sign, signatureHeader } from '../../src/push/signing/signing.ts';
import { createSecretBox } from '../../src/crypto.ts';
import { transactionId } from '../../src/push/message/transaction-id.ts';
import { verifyWebhook, WebhookVerificationError } from '../../src/push/signing/verify-webhook.ts';

// Svix's and Standard Webhooks' published test vector (standard-webhooks spec, javascript tests).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const box = createSecretBox('verify-webhook-test-key');

function signed(secret: string, body: string, at = new Date()) {
  const id = transactionId(box, 'sub', 'V1RTUALV1N0000S08', 'accidentautomatic', at.getTime());
  const timestamp = Math.floor(at.getTime() / 1000);
  return { id, timestamp, headers: { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': sign(secretKey(secret), id, timestamp, body) } };
}

describe('Standard Webhooks signing', () => {
  it('matches the published known-answer vector', () => {
    expect(sign(secretKey(VECTOR.secret), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it('makes secrets of whsec_ + base64 of 32 random bytes, all different', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(a)).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
  });

  it('our signature verifies with the standardwebhooks package, for any body', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const secret = newSigningSecret();
        const body = JSON.stringify(value);
        const { headers } = signed(secret, body);
        expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      }),
      { numRuns: 100 },
    );
  });

  it('the standardwebhooks package’s signature verifies with ours', () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({ hello: 'world', n: 1 });
    const at = new Date();
    const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
    const signature = new Webhook(secret).sign(id, at, body);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
    expect(verifyWebhook(secret, headers, body)).toEqual({ hello: 'world', n: 1 });
    expect(verifyWebhook(secret, new Headers(headers), Buffer.from(body))).toEqual({ hello: 'world', n: 1 });
  });

  it('signs with every key during a rotation; each key verifies alone', () => {
    const [oldSecret, newSecret] = [newSigningSecret(), newSigningSecret()];
    const body = '{"a":1}';
    const now = new Date();
    const ts = Math.floor(now.getTime() / 1000);
    const header = signatureHeader([secretKey(newSecret), secretKey(oldSecret)], 'msg_1', ts, body);
    expect(header.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': header };
    for (const s of [oldSecret, newSecret]) {
      expect(new Webhook(s).verify(body, headers)).toEqual({ a: 1 });
      expect(verifyWebhook(s, headers, body)).toEqual({ a: 1 });
    }
    expect(() => verifyWebhook(newSigningSecret(), headers, body)).toThrow('No matching signature found');
  });
});

// The svix/standardwebhooks library's own test cases (javascript/src/webhook.test.ts).
describe('verifyWebhook edge cases', () => {
  const secret = newSigningSecret();
  const body = '{"test": 2432232314}';

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('missing %s fails', (name) => {
    const { headers } = signed(secret, body);
    const partial: Record<string, string> = { ...headers };
    delete partial[name];
    expect(() => verifyWebhook(secret, partial, body)).toThrow(new WebhookVerificationError('Missing required headers'));
  });

  it('an invalid signature fails', () => {
    const { headers } = signed(secret, body);
    headers['webhook-signature'] = 'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=';
    expect(() => verifyWebhook(secret, headers, body)).toThrow('No matching signature found');
  });

  it.each([
    ['a partial signature', (s: string) => s.slice(0, -5)],
    ['a signature with junk appended', (s: string) => `${s}!!`],
    ['the bare base64 without version', (s: string) => s.slice(3)],
    ['another version', (s: string) => `v2,${s.slice(3)}`],
    ['an empty signature', () => 'v1,'],
  ])('%s fails', (_what, mangle) => {
    const { headers } = signed(secret, body);
    headers['webhook-signature'] = mangle(headers['webhook-signature']);
    expect(() => verifyWebhook(secret, headers, body)).toThrow(WebhookVerificationError);
  });

  it('a changed body or id fails', () => {
    const { headers } = signed(secret, body);
    expect(() => verifyWebhook(secret, headers, body.replace('2', '3'))).toThrow('No matching signature found');
    expect(() => verifyWebhook(secret, { ...headers, 'webhook-id': 'other' }, body)).toThrow('No matching signature found');
  });

  it('an old timestamp fails, a new one fails, within tolerance passes', () => {
    const now = new Date('2026-06-01T12:00:00Z');
    const old = signed(secret, body, new Date(now.getTime() - 301_000));
    const fresh = signed(secret, body, new Date(now.getTime() + 301_000));
    expect(() => verifyWebhook(secret, old.headers, body, { now })).toThrow('Message timestamp too old');
    expect(() => verifyWebhook(secret, fresh.headers, body, { now })).toThrow('Message timestamp too new');
    expect(verifyWebhook(secret, signed(secret, body, new Date(now.getTime() - 299_000)).headers, body, { now })).toEqual({ test: 2432232314 });
    expect(verifyWebhook(secret, old.headers, body, { now, toleranceSeconds: 600 })).toEqual({ test: 2432232314 });
  });

  it('a non-numeric timestamp fails', () => {
    const { headers } = signed(secret, body);
    expect(() => verifyWebhook(secret, { ...headers, 'webhook-timestamp': 'soon' }, body)).toThrow('Invalid Signature Headers');
  });

  it('multiple signatures: one valid among invalid ones passes', () => {
    const { headers } = signed(secret, body);
    headers['webhook-signature'] = `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,abc ${headers['webhook-signature']} v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=`;
    expect(verifyWebhook(secret, headers, body)).toEqual({ test: 2432232314 });
  });

  it('header names are matched in any case', () => {
    const { headers } = signed(secret, body);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(secret, upper, body)).toEqual({ test: 2432232314 });
  });
});

describe('transaction ids', () => {
  it('are deterministic UUIDs with only hex and dashes (no "." for signing, no ":" for BullMQ)', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.string(), fc.string(), fc.integer({ min: 0 }), (sub, vin, item, ts) => {
        const id = transactionId(box, sub, vin, item, ts);
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(transactionId(box, sub, vin, item, ts)).toBe(id);
      }),
      { numRuns: 200 },
    );
    expect(transactionId(box, 's', 'V', 'i', 1)).not.toBe(transactionId(box, 's', 'V', 'i', 2));
    expect(transactionId(box, 's1', 'V', 'i', 1)).not.toBe(transactionId(box, 's2', 'V', 'i', 1));
    expect(transactionId(box, 's', 'V1', 'i', 1)).not.toBe(transactionId(box, 's', 'V2', 'i', 1));
  });

  it('depend on the service key, so nobody without it can test VINs against an id', () => {
    const other = createSecretBox('another-deployment-key');
    expect(transactionId(box, 's', 'V1RTUALV1N0000S08', 'i', 1)).not.toBe(transactionId(other, 's', 'V1RTUALV1N0000S08', 'i', 1));
  });
});
