import { randomToken, sha256Hex, type SecretBox } from '../../crypto.ts';
import { OEM_CODE } from '../keys.ts';
import type { RedisClient } from '../../queues/redis.ts';
import { openSealedJson } from '../../queues/sealed-job.ts';

/** What an authorization code of the simulated server stands for. */
export interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  /** Granted items. */
  scope: string[];
  vin: string;
}

/**
 * Codes live 2 minutes and are stored under their hash (RFC 6749 4.1.2 recommends short lives);
 * what a code stands for names the VIN, so it is sealed with the service key (Redis holds no VIN
 * in clear: a copy of its data names no vehicle).
 */
const CODE_TTL_S = 120;
const key = (prefix: string, realm: string, code: string) => OEM_CODE.key(prefix, realm, sha256Hex(code));

export async function issueCode(redis: RedisClient, secrets: SecretBox, prefix: string, realm: string, grant: IssuedCode): Promise<string> {
  const code = randomToken(32);
  await redis.set(key(prefix, realm, code), secrets.encrypt(JSON.stringify(grant)), 'EX', CODE_TTL_S);
  return code;
}

/** Takes a code out for good (GETDEL): a code works once, whatever happens next. */
export async function redeemCode(redis: RedisClient, secrets: SecretBox, prefix: string, realm: string, code: string): Promise<IssuedCode | null> {
  const v = await redis.getdel(key(prefix, realm, code));
  return openSealedJson(secrets, v) as IssuedCode | null;
}
