import { createCipheriv, createDecipheriv, createHash, createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A random URL-safe token from the CSPRNG: 32 bytes give 256 bits, 43 characters. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** One-shot `hash` (Node ≥ 20.12): about half the cost of a Hash object, on every API request. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

/**
 * Compares a presented secret with a stored SHA-256 hex digest in constant time. The presented
 * value is hashed first, so both sides have the same length whatever was sent.
 */
export function matchesHash(presented: string, storedHashHex: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = Buffer.from(storedHashHex, 'hex');
  return b.length === a.length && timingSafeEqual(a, b);
}

/**
 * Encrypts secrets that must be read back (webhook signing secrets, a webhook's Authorization
 * value, manufacturer tokens) and pseudonymises VINs for logs and metrics.
 */
export interface SecretBox {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
  /** Keyed hash of a VIN: stable, not reversible without the key. Safe for logs. */
  pseudonym(value: string): string;
  /**
   * Forgets the value behind this pseudonym, if remembered: a VIN-wide GDPR erasure must not
   * leave the VIN in any process's memory (src/gdpr/erase.ts).
   */
  forget(pseudonym: string): void;
  /** Forgets every remembered value (an erasure's message may have been missed). */
  forgetAll(): void;
  /** Whether the value's pseudonym is remembered (what the erasure's tests check). */
  remembers(value: string): boolean;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The bytes of a canonical base64url text (no padding, no other characters, no stray bits), else undefined. */
function canonicalBase64url(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

/** VINs whose pseudonym a secret box remembers (all are forgotten when full). */
const PSEUDONYM_MEMO = 50_000;

export function createSecretBox(secretKey: string): SecretBox {
  const encKey = createHash('sha256').update(`enc:${secretKey}`).digest();
  const macKey = createHash('sha256').update(`mac:${secretKey}`).digest();
  // Delivery pseudonymises up to 10 VINs per request (rate-limit keys, cache invalidation):
  // remembering recent ones saves an HMAC each time.
  const pseudonyms = new Map<string, string>();
  return {
    encrypt(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv, { authTagLength: TAG_BYTES });
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`;
    },
    decrypt(sealed) {
      // One text per sealed value: exactly the four fields encrypt writes, each in canonical
      // base64url, a 12-byte IV and a full 16-byte tag. Anything else (a field appended, padding
      // or stray bits that decode to the same bytes, a tag cut to 4 bytes, which GCM would check
      // as 4 bytes: one forgery in 2^32 tries) is refused before it is opened.
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== 'v1') throw new Error('not a sealed secret');
      const iv = canonicalBase64url(parts[1]!);
      const tag = canonicalBase64url(parts[2]!);
      const body = canonicalBase64url(parts[3]!);
      if (!iv || iv.length !== IV_BYTES || !tag || tag.length !== TAG_BYTES || !body) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', encKey, iv, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    },
    pseudonym(value) {
      let p = pseudonyms.get(value);
      if (p === undefined) {
        p = `p_${createHmac('sha256', macKey).update(value).digest('base64url').slice(0, 16)}`;
        if (pseudonyms.size >= PSEUDONYM_MEMO) pseudonyms.clear();
        pseudonyms.set(value, p);
      }
      return p;
    },
    forget(pseudonym) {
      // A scan, on an erasure only: keyed by the VIN, the memo is looked up on every request.
      for (const [value, p] of pseudonyms) if (p === pseudonym) pseudonyms.delete(value);
    },
    forgetAll() {
      pseudonyms.clear();
    },
    remembers(value) {
      return pseudonyms.has(value);
    },
  };
}

/**
 * The SECRET_KEY setting, or a key generated once into DATA_DIR/secret.key (mode 0600) so a
 * single-machine deployment needs no set-up. Several processes on one DATA_DIR share it.
 */
export function resolveSecretKey(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = join(dataDir, 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomToken(32);
  // Written whole to a temporary file, then linked into place: a process starting at the same
  // moment sees either no file or the complete key, never a half-written one.
  const temp = `${file}.${process.pid}.${randomToken(6)}`;
  writeFileSync(temp, `${key}\n`, { mode: 0o600 });
  try {
    linkSync(temp, file);
    return key;
  } catch {
    // Another process created it first: use theirs.
    return readFileSync(file, 'utf8').trim();
  } finally {
    unlinkSync(temp);
  }
}
