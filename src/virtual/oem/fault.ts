import { OEM_FAULT } from '../keys.ts';
import type { RedisClient } from '../../queues/redis.ts';

/**
 * The fault switch of a simulated authorization server (api-contract section 4): `down`
 * makes its token endpoint drop connections, `timeout` makes it answer too late. Kept in
 * Redis so every process serving the realm sees the same switch.
 */
export const FAULT_MODES = ['none', 'down', 'timeout'] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

const key = OEM_FAULT.key;

export async function getFault(redis: RedisClient, prefix: string, realm: string): Promise<FaultMode> {
  const v = await redis.get(key(prefix, realm));
  return (FAULT_MODES as readonly string[]).includes(v ?? '') ? (v as FaultMode) : 'none';
}

export async function setFault(redis: RedisClient, prefix: string, realm: string, mode: FaultMode): Promise<void> {
  if (mode === 'none') await redis.del(key(prefix, realm));
  else await redis.set(key(prefix, realm), mode);
}
