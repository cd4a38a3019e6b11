import { createHmac } from 'node:crypto';
import type { Config } from '../config.ts';
import { resolveSecretKey } from '../crypto.ts';

/**
 * The admin token of the local try-out, so that its console is on: derived from the SECRET_KEY
 * (the try-out's own, generated once into DATA_DIR/secret.key), so every start of the same
 * try-out has the same token and nothing more is stored. None where ADMIN_TOKEN is set (that
 * one counts) or outside the try-out (DEMO_SEED off): there the console stays off until the
 * operator sets a token.
 */
export function tryOutAdminToken(config: Pick<Config, 'ADMIN_TOKEN' | 'DEMO_SEED' | 'SECRET_KEY' | 'DATA_DIR'>): string | undefined {
  if (config.ADMIN_TOKEN || !config.DEMO_SEED) return undefined;
  const key = resolveSecretKey(config.SECRET_KEY, config.DATA_DIR);
  return createHmac('sha256', key).update('cvd try-out admin token').digest('base64url').slice(0, 32);
}

/** The configuration with the try-out's admin token where it gets one (see {@link tryOutAdminToken}). */
export function withTryOutConsole(config: Config): { config: Config; consoleToken: string | undefined } {
  const consoleToken = tryOutAdminToken(config);
  return { config: consoleToken ? { ...config, ADMIN_TOKEN: consoleToken } : config, consoleToken };
}
