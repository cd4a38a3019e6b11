import { createHmac } from 'node:crypto';
import type { Adapter } from '../adapters/manifest.ts';
import { resolveSecretKey } from '../crypto.ts';
import { VERIFY_SCOPE } from './scope.ts';
import type { Settings } from '../config-sections.ts';

/** A manufacturer's authorization server as the consent flow uses it (from its manifest). */
export interface ManufacturerAuth {
  manufacturerId: string;
  name: string;
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  clientId: string;
  /** Sent with HTTP Basic at the token endpoint when the manifest declares a client secret. */
  clientSecret: string | undefined;
  /** Our callback for this manufacturer only: a distinct path per server (mix-up defence). */
  redirectUri: string;
  /** What a withdrawal asks for: proof of control of the vehicle, no data. */
  verifyScope: string;
}

/** Manifest endpoints may be paths on this service (the simulated servers it hosts). */
export function resolveEndpoint(config: Settings<'http'>, value: string): string {
  return value.startsWith('/') ? `${config.publicUrl}${value}` : value;
}

export function callbackUri(config: Settings<'http'>, manufacturerId: string): string {
  return `${config.consentUrl}/callback/${encodeURIComponent(manufacturerId)}`;
}

/** Whether the manufacturer's authorization server is one this service hosts (a path, src/virtual/oem). */
const isHosted = (adapter: Adapter): boolean => adapter.manifest.authorization.tokenEndpoint.startsWith('/');

/**
 * The OAuth client secret at a manufacturer: the environment variable the manifest names
 * (`clientSecretEnv`) wins; unset, for a simulated server this service hosts, it is derived from
 * SECRET_KEY, so server and client agree without set-up. An outside server issued its secret
 * itself: there is nothing to derive ({@link checkOutsideClientSecrets} stops the start). No
 * secret when the manifest declares none.
 */
export function oauthClientSecret(config: Settings<'process'>, adapter: Adapter, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const envName = adapter.manifest.authorization.clientSecretEnv;
  if (envName === undefined) return undefined;
  const fromEnv = env[envName];
  if (fromEnv) return fromEnv;
  if (!isHosted(adapter)) return undefined;
  const key = resolveSecretKey(config.SECRET_KEY, config.DATA_DIR);
  return createHmac('sha256', key).update(`oauth-client:${adapter.manifest.id}`).digest('base64url');
}

/**
 * At start: every manufacturer whose authorization server is outside this service has the
 * client secret that server issued in the variable its manifest names. Without it every token
 * exchange would fail at the first real consent; the start stops instead, naming it.
 */
export function checkOutsideClientSecrets(adapters: readonly Adapter[], env: NodeJS.ProcessEnv = process.env): void {
  for (const adapter of adapters) {
    const envName = adapter.manifest.authorization.clientSecretEnv;
    if (envName === undefined || isHosted(adapter) || env[envName]) continue;
    throw new Error(
      `${envName} is not set: it must hold the OAuth client secret that ${adapter.manifest.name} (${adapter.manifest.id})'s authorization server issued (adapters/${adapter.manifest.id}/manifest.json authorization.clientSecretEnv)`,
    );
  }
}

export function manufacturerAuth(config: Settings<'http' | 'process'>, adapter: Adapter): ManufacturerAuth {
  const a = adapter.manifest.authorization;
  return {
    manufacturerId: adapter.manifest.id,
    name: adapter.manifest.name,
    issuer: resolveEndpoint(config, a.issuer),
    authorizationEndpoint: resolveEndpoint(config, a.authorizationEndpoint),
    tokenEndpoint: resolveEndpoint(config, a.tokenEndpoint),
    clientId: a.clientId,
    clientSecret: oauthClientSecret(config, adapter),
    redirectUri: callbackUri(config, adapter.manifest.id),
    verifyScope: a.verifyScope ?? VERIFY_SCOPE,
  };
}
