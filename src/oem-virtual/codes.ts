import type { Redis } from 'ioredis';
import { randomToken, sha256Hex } from '../crypto.ts';

/** What an authorization code of the simulated server stands for. */
export interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  /** Granted items. */
  scope: string[];
  vin: string;
}

/** Codes live 2 minutes and are stored under their hash (RFC 6749 4.1.2 recommends short lives). */
const CODE_TTL_S = 120;
const key = (prefix: string, realm: string, code: string) => `${prefix}:oem:${realm}:code:${sha256Hex(code)}`;

export async function issueCode(redis: Redis, prefix: string, realm: string, grant: IssuedCode): Promise<string> {
  const code = randomToken(32);
  await redis.set(key(prefix, realm, code), JSON.stringify(grant), 'EX', CODE_TTL_S);
  return code;
}

/** Takes a code out for good (GETDEL): a code works once, whatever happens next. */
export async function redeemCode(redis: Redis, prefix: string, realm: string, code: string): Promise<IssuedCode | null> {
  const v = await redis.getdel(key(prefix, realm, code));
  return v === null ? null : (JSON.parse(v) as IssuedCode);
}
