import { existsSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Adapter } from '../adapters/manifest.ts';
import { ConfigError, type Config } from '../config.ts';
import type { SimulatedManufacturer, WingModule, WingRole, WingRouteOptions } from '../http/wing-contract.ts';
import type { Logger } from '../logger.ts';
import type { Paths } from '../paths.ts';
import { registerKeyFamilies } from '../queues/keys.ts';
import type { Services } from '../services.ts';

/** What the loaded virtual wing added to this process (src/http/wing-contract.ts). */
export interface Wing {
  manufacturers: SimulatedManufacturer[];
  routes: ((app: FastifyInstance, opts: WingRouteOptions) => Promise<void>)[];
  simulatorRole: WingRole | null;
}

/**
 * The wing's entry, beside this file in the same tree and with the same extension: `.ts` when
 * the sources run (tsx, vitest), `.js` in a build. A plain path in a variable, so that the
 * production build (tsconfig.build.json) neither follows nor compiles it.
 */
const WING_ENTRY = new URL(`../virtual/wing${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/**
 * Loads the virtual wing when SIMULATOR=on, and only then: its code is imported here and
 * nowhere else, so a process with SIMULATOR=off never loads a file of src/virtual/ or
 * simulator/, and the production build, which leaves them out, runs without them. The wing
 * registers what it adds (its manufacturer's vehicles, its Redis keys, its routes, the simulator
 * role) through the registrar below. Throws ConfigError when SIMULATOR=on where the wing is
 * not (the production build), or on a bad SIM_* setting.
 */
export async function loadWing(config: Config, ctx: { env: NodeJS.ProcessEnv; paths: Paths }): Promise<Wing | null> {
  if (config.SIMULATOR !== 'on') return null;
  if (!existsSync(WING_ENTRY)) {
    throw new ConfigError(
      'SIMULATOR',
      'is on, but this build has no virtual wing (the production build leaves src/virtual/ and simulator/ out): set SIMULATOR=off, or run the sources (npm start) or a build with the wing (npm run build:wing)',
    );
  }
  const mod = (await import(WING_ENTRY.href)) as WingModule;
  const wing: Wing = { manufacturers: [], routes: [], simulatorRole: null };
  mod.registerWing(
    {
      manufacturer(m) {
        if (wing.manufacturers.some((o) => o.id === m.id)) throw new Error(`the wing registered manufacturer ${m.id} twice`);
        wing.manufacturers.push(m);
      },
      keyFamilies: registerKeyFamilies,
      routes: (plugin) => wing.routes.push(plugin),
      simulatorRole(start) {
        wing.simulatorRole = start;
      },
    },
    { config, ...ctx },
  );
  return wing;
}

/**
 * Which manufacturer has which VIN, and what the vehicle supplies (Services.ownsVin and
 * vehicleItems): a manufacturer the wing plays says it per vehicle; any other auto-confirming
 * manufacturer has every VIN its prefixes claim, and says nothing per vehicle.
 */
export function vehicleOwnership(wing: Wing | null): Pick<Services, 'ownsVin' | 'vehicleItems'> {
  const played = (id: string) => wing?.manufacturers.find((m) => m.id === id);
  return {
    ownsVin: (manufacturer, vin) => played(manufacturer)?.ownsVin(vin) ?? true,
    vehicleItems: (manufacturer, vin) => played(manufacturer)?.vehicleItems(vin) ?? null,
  };
}

/** Mounts the wing's routes on the HTTP front (nothing without the wing). */
export async function mountWing(app: FastifyInstance, wing: Wing | null, opts: WingRouteOptions): Promise<void> {
  for (const routes of wing?.routes ?? []) await app.register(routes, opts);
}

/**
 * Without the wing, a manufacturer whose manifest names a hosted authorization server (an issuer
 * path, `/oem/<id>`) has no consent flow here: nothing answers there. Said once at start, so an
 * operator of the production image who kept the repository's example manufacturers knows why.
 */
export function warnUnservedIssuers(adapters: readonly Adapter[], logger: Logger): void {
  const unserved = adapters.filter((a) => a.manifest.authorization.issuer.startsWith('/')).map((a) => a.manifest.id);
  if (unserved.length === 0) return;
  logger.warn(
    { manufacturers: unserved },
    'these manufacturers name an authorization server this service hosts only with the virtual wing (SIMULATOR=on): without it their consent flow fails',
  );
}
