import { suppliedItems } from '../delivery/capabilities.ts';
import { createConsumer, createSubscription, redirectUrlProblem } from '../provisioning/index.ts';
import type { Services } from '../services.ts';
import { AUTH_HEADERS, JSON_HEADER, pullCommand, sq } from '../http/demo-commands.ts';
import type { Wing } from './wing.ts';

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
  services: Pick<Services, 'store' | 'clock' | 'catalog' | 'config' | 'logger' | 'adapters' | 'vehicleItems'>,
  out: (text: string) => void = (text) => process.stdout.write(text),
  opts: { consoleToken?: string | undefined; wing?: Wing | null } = {},
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
  // The vehicles to try come from the manufacturer the wing plays (none without the wing).
  const vins = (opts.wing?.manufacturers[0]?.vins() ?? []).slice(0, 13);
  // Step 3 pulls only what its vehicle sends: no "not supplied" answer in the first pull.
  const supplied = vins[0] ? suppliedItems(services, services.adapters.forVin(vins[0])?.manifest.id ?? null, vins[0]) : null;
  out(
    demoInstructions({
      ...seed,
      publicUrl,
      consentUrl,
      vins,
      dataItems: supplied ? subscription.dataItems.filter((i) => supplied.has(i)) : subscription.dataItems,
      sandbox: Boolean(opts.wing),
      console: services.config.ADMIN_TOKEN ? { url: `${publicUrl}/console`, token: opts.consoleToken ?? null } : null,
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
  /** The subscription's items that the first vehicle supplies (step 3 pulls some of them). */
  dataItems: string[];
  /** The sandbox is mounted (SIMULATOR=on): step 5 triggers a crash. */
  sandbox: boolean;
  /** Where the console is, and the try-out's token to sign in with (null: the operator's own ADMIN_TOKEN, not printed); null without a console. */
  console?: { url: string; token: string | null } | null;
}

/**
 * The block's steps (README "Try it"): pull in three, push in two. Step 1 keeps the key and
 * subscription in shell variables, so the other commands (and the demo callback page's
 * next command) fit on a screen; every command line is indented by four spaces, prose by fewer.
 */
export function demoInstructions(d: DemoInstructionsInput): string {
  const auth = AUTH_HEADERS;
  const json = JSON_HEADER;
  const firstVin = d.vins[0] ?? 'V1RTUALV1N0000001';
  const consent = new URL(`${d.consentUrl}/provision`);
  consent.searchParams.set('consumerId', d.consumerId);
  consent.searchParams.set('subscriptionId', d.subscriptionId);
  if (d.allowedRedirectUrls[0]) consent.searchParams.set('redirectUrl', d.allowedRedirectUrls[0]);
  consent.searchParams.set('vin', firstVin);
  const activate = JSON.stringify({ action: 'activate', vins: d.vins });
  const crash = JSON.stringify({ type: 'accidentautomatic', severity: 4 });
  const vars = `CVD_URL=${sq(d.publicUrl)} CVD_API_KEY=${sq(d.apiKey)} CVD_SUBSCRIPTION_ID=${sq(d.subscriptionId)}`;
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
    ' Paste the steps into one terminal (step 4 opens a second); steps 3 to 5 use the variables of step 1.',
    '',
    ' 1. Keep the key in this terminal and activate the virtual vehicles:',
    `    export ${vars}`,
    `    curl -sS -X PUT "$CVD_URL/management/v1/vehicles" ${auth} \\`,
    `      ${json} -d ${sq(activate)}`,
    '',
    ` 2. Give consent for ${firstVin} in a browser: the portal asks for a name and an e-mail address,`,
    '   then any user name and password at the manufacturer:',
    `    ${consent.toString()}`,
    '',
    ' 3. Pull its data:',
    `    ${pullCommand(firstVin, d.dataItems, ' \\\n      ')}`,
    '',
    ' 4. Receive pushes: in a SECOND terminal, start a receiver that registers itself as your',
    '   webhook and verifies every push it gets:',
    `    ${vars} npm run try:receiver`,
    '   then, back in this one, send it a signed test event:',
    `    curl -sS -X POST "$CVD_URL/push/v1/webhook/test" ${auth}`,
    '',
    ...(d.sandbox
      ? [
          ` 5. Make ${firstVin} crash now: the receiver prints the push (a sandbox event is yours alone: not stored, not in the pull):`,
          `    curl -sS -X POST "$CVD_URL/sandbox/v1/vehicles/${firstVin}/events" ${auth} \\`,
          `      ${json} -d ${sq(crash)}`,
        ]
      : [' 5. Crashes are pushed as they happen (simulator/README.md has the schedule); the sandbox that', '   triggers one now runs only with SIMULATOR=on.']),
    '',
    ...(d.console
      ? [
          ' The console (fleet, map, pipeline charts, quarantine, mapping playground) and the API docs:',
          `    ${d.console.url}`,
          `    ${d.console.url.replace(/\/console$/, '/docs')}`,
          d.console.token
            ? `   sign in with the token generated for this try-out: ${d.console.token}`
            : '   sign in with your ADMIN_TOKEN.',
        ]
      : [` The API docs: ${d.publicUrl}/docs (the console at /console needs ADMIN_TOKEN).`]),
    rule,
    '',
  ].join('\n');
}
