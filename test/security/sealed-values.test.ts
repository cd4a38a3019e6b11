import { createCipheriv, createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/crypto.ts';

/*
 * A sealed value (AES-256-GCM under SECRET_KEY: console cookies, stored webhook secrets and
 * tokens, sealed jobs) opens from exactly one text. `decrypt` used to accept extra `.`-fields,
 * base64 that is not canonical, and GCM tags cut down to 4 bytes: a signed-out cookie with `.x`
 * appended signed in again, and each forged tag had a 2^-32 chance instead of 2^-128.
 */
const KEY = 'a-secret-key-of-the-sealed-values-test-0001';
const box = createSecretBox(KEY);

const fields = (sealed: string) => sealed.split('.') as [string, string, string, string];
const b64 = (b: Buffer) => b.toString('base64url');

/** The last character of a base64url field with its unused low bits set: other text, same bytes. */
function strayBits(field: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const unused = field.length % 4 === 2 ? 0b1111 : field.length % 4 === 3 ? 0b11 : 0;
  if (unused === 0) throw new Error('this field has no unused bits');
  const last = alphabet.indexOf(field.at(-1)!);
  return `${field.slice(0, -1)}${alphabet[last | unused]}`;
}

describe('SecretBox.decrypt accepts exactly one text per sealed value', () => {
  const sealed = box.encrypt('{"c":"csrf","e":1}');
  const [v, iv, tag, body] = fields(sealed);

  it('opens what it sealed, an empty value too', () => {
    expect(box.decrypt(sealed)).toBe('{"c":"csrf","e":1}');
    expect(box.decrypt(box.encrypt(''))).toBe('');
  });

  it('refuses extra fields', () => {
    for (const text of [`${sealed}.x`, `${sealed}.`, `${v}.${iv}.${tag}.${body}.${body}`]) expect(() => box.decrypt(text), text).toThrow('not a sealed secret');
  });

  it('refuses base64 that is not canonical (the same bytes in other text)', () => {
    // Buffer.from decodes each of these to the very bytes of the original field.
    expect(Buffer.from(strayBits(tag), 'base64url')).toEqual(Buffer.from(tag, 'base64url'));
    for (const text of [
      `${v}.${iv}.${strayBits(tag)}.${body}`,
      `${v}.${iv}.${tag}==.${body}`,
      `${v}.${iv}.${tag}.${body.slice(0, 4)}!${body.slice(4)}`,
      `${v}.${iv} .${tag}.${body}`,
    ]) {
      expect(() => box.decrypt(text), text).toThrow();
    }
  });

  it('refuses a GCM tag shorter than 16 bytes, though its first bytes are right', () => {
    for (const n of [4, 8, 12, 15]) {
      const cut = b64(Buffer.from(tag, 'base64url').subarray(0, n));
      expect(() => box.decrypt(`${v}.${iv}.${cut}.${body}`), `${n} bytes`).toThrow();
    }
  });

  it('refuses an IV that is not 12 bytes', () => {
    // A value sealed with a 16-byte IV under the same key (as another implementation might).
    const encKey = createHash('sha256').update(`enc:${KEY}`).digest();
    const iv16 = Buffer.alloc(16, 7);
    const cipher = createCipheriv('aes-256-gcm', encKey, iv16);
    const enc = Buffer.concat([cipher.update('x', 'utf8'), cipher.final()]);
    expect(() => box.decrypt(`v1.${b64(iv16)}.${b64(cipher.getAuthTag())}.${b64(enc)}`)).toThrow('not a sealed secret');
  });
});
