import { createConsumer, createSubscription, redirectUrlProblem } from '../provisioning/index.ts';
import type { Services } from '../services.ts';
import { loadVirtualVins } from '../../simulator/src/virtual-vins.ts';

export interface DemoSeed {
  consumerId: string;
  apiKey: string;
  subscriptionId: string;
  allowedRedirectUrls: string[];
}

/** Where the demo's consent flow comes back to; the consent work may serve a page there. */
export function demoRedirectUrl(publicUrl: string): string {
  return `${publicUrl}/demo/callback`;
}

/**
 * On an empty store (no consumer at all): a "Demo consumer" with a subscription to every
 * catalog item (legal basis CONSENT), whose API key, subscription id and ready-to-paste curl
 * commands are written ONCE to `out` (stdout by default), never through the logger. The key is
 * stored only as a hash, so it cannot be shown again.
 *
 * stdout is the log of a supervised process (journald, `docker logs`), so the key would end up
 * there after all: the caller runs this only when DEMO_SEED is on, which by default it is only
 * for the local try-out (neither REDIS_URL nor MONGO_URL set; see src/config.ts).
 *
 * Two API processes starting at the same moment on one empty store may each create a demo
 * consumer; that is harmless (two independent demo tenants) and not worth a lock.
 */
export async function seedDemo(
  services: Pick<Services, 'store' | 'clock' | 'catalog' | 'config' | 'paths' | 'logger'>,
  out: (text: string) => void = (text) => process.stdout.write(text),
): Promise<DemoSeed | null> {
  if ((await services.store.consumers.count()) > 0) return null;
  const { publicUrl, consentUrl } = services.config;
  const consumer = await createConsumer(services, 'Demo consumer');
  // A non-loopback http PUBLIC_URL cannot be whitelisted (https only): the demo then runs
  // its consent flow without a redirect, and the portal shows the result instead.
  const redirect = demoRedirectUrl(publicUrl);
  const allowedRedirectUrls = redirectUrlProblem(redirect) === null ? [redirect] : [];
  const subscription = await createSubscription(services, {
    consumerId: consumer.consumerId,
    dataItems: services.catalog.list().map((e) => e.technicalName),
    allowedRedirectUrls,
    legalBasis: 'CONSENT',
  });
  const seed: DemoSeed = {
    consumerId: consumer.consumerId,
    apiKey: consumer.apiKey,
    subscriptionId: subscription.subscriptionId,
    allowedRedirectUrls,
  };
  out(
    demoInstructions({
      ...seed,
      publicUrl,
      consentUrl,
      vins: [...loadVirtualVins(services.paths.scenarios)].slice(0, 13),
      dataItems: subscription.dataItems,
    }),
  );
  services.logger.info({ consumerId: seed.consumerId, subscriptionId: seed.subscriptionId }, 'demo consumer created');
  return seed;
}

/** What the demo seed prints: everything needed to try the API from a terminal. */
export interface DemoInstructionsInput {
  consumerId: string;
  apiKey: string;
  subscriptionId: string;
  allowedRedirectUrls: string[];
  publicUrl: string;
  consentUrl: string;
  vins: string[];
  dataItems: string[];
}

/** Items worth asking for first, when the catalog has them. */
const SHOWCASE_ITEMS = ['mileage', 'fuellevel', 'geolocation', 'batteryvoltage', 'sochighlevel'];

/** Single-quoted for a POSIX shell. */
function sq(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function demoInstructions(d: DemoInstructionsInput): string {
  const headers = `-H ${sq(`x-api-key: ${d.apiKey}`)} -H ${sq(`X-Subscription-Id: ${d.subscriptionId}`)}`;
  const firstVin = d.vins[0] ?? 'V1RTUALV1N0000001';
  const items = SHOWCASE_ITEMS.filter((i) => d.dataItems.includes(i));
  const requestItems = items.length > 0 ? items : d.dataItems.slice(0, 3);
  const consent = new URL(`${d.consentUrl}/provision`);
  consent.searchParams.set('consumerId', d.consumerId);
  consent.searchParams.set('subscriptionId', d.subscriptionId);
  if (d.allowedRedirectUrls[0]) consent.searchParams.set('redirectUrl', d.allowedRedirectUrls[0]);
  consent.searchParams.set('vin', firstVin);
  const activate = JSON.stringify({ action: 'activate', vins: d.vins });
  const deliver = JSON.stringify({ version: '1.0', vehicles: [{ identifier: { type: 'VIN', value: firstVin } }], dataItems: requestItems });
  const rule = '='.repeat(78);
  return [
    '',
    rule,
    ' DEMO CONSUMER CREATED (the store was empty)',
    ' The API key is shown ONLY NOW: the service stores only its SHA-256 hash.',
    ' Copy it; a new key can be created with `npm run cli -- keys create --consumer <consumerId>`.',
    rule,
    `  consumerId      ${d.consumerId}`,
    `  API key         ${d.apiKey}`,
    `  subscriptionId  ${d.subscriptionId}  (every catalog item, legal basis CONSENT)`,
    '',
    ' 1. Activate the virtual vehicles:',
    `    curl -sS -X PUT ${sq(`${d.publicUrl}/management/v1/vehicles`)} ${headers} \\`,
    `      -H 'content-type: application/json' -d ${sq(activate)}`,
    '',
    ` 2. Give consent for ${firstVin} in a browser:`,
    `    ${consent.toString()}`,
    '',
    ' 3. Ask for its data:',
    `    curl -sS -X POST ${sq(`${d.publicUrl}/delivery/v1/in-vehicle`)} ${headers} \\`,
    `      -H 'content-type: application/json' -d ${sq(deliver)}`,
    rule,
    '',
  ].join('\n');
}
