import { createHmac } from 'node:crypto';
import { resolveSecretKey } from '../crypto.ts';
import { transportKind } from '../transports/kinds.ts';
import type { Adapter } from './manifest.ts';
import type { Settings } from '../config-sections.ts';

/**
 * A manufacturer's transport secret: the MQTT password at the embedded broker, or the HMAC key
 * of HTTP ingest. The environment variable the manifest names (`passwordEnv` / `secretEnv`)
 * wins; unset, the secret is derived from SECRET_KEY (HMAC-SHA256 of "adapter:<id>:<kind>"),
 * so a single-machine deployment works without set-up and the secret is still unguessable
 * without the key. Print it for a manufacturer with `npm run cli -- adapters secret <id>`.
 * Adding a manufacturer therefore needs no new setting in src/config.ts.
 */
export function adapterSecret(config: Settings<'process'>, adapter: Adapter, env: NodeJS.ProcessEnv = process.env): string {
  const t = adapter.manifest.transport;
  const envName = transportKind(t).secretEnv(t);
  const fromEnv = envName ? env[envName] : undefined;
  if (fromEnv) return fromEnv;
  const key = resolveSecretKey(config.SECRET_KEY, config.DATA_DIR);
  return createHmac('sha256', key).update(`adapter:${adapter.manifest.id}:${t.kind}`).digest('base64url');
}

/**
 * Credentials a publisher of this MQTT adapter uses at the embedded broker (the simulator
 * uses them for `virtual`). Throws for an adapter whose transport has no broker login.
 */
export function mqttCredentials(config: Settings<'process'>, adapter: Adapter): { username: string; password: string } {
  const t = adapter.manifest.transport;
  const { username, password } = transportKind(t).credentials(t, adapterSecret(config, adapter));
  if (username === undefined || password === undefined) throw new Error(`adapter ${adapter.manifest.id} does not use MQTT`);
  return { username, password };
}
