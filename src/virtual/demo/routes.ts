import type { FastifyInstance } from 'fastify';
import { pageHeaders } from '../../http/pages/headers.ts';
import { renderMessagePage } from '../../http/pages/message-page.ts';
import { ACTIVE_CONSENT_STATES } from '../../consent/index.ts';
import { singleValues } from '../../http/single-value.ts';
import type { WingContext } from '../../http/wing-contract.ts';
import { suppliedItems } from '../../delivery/capabilities.ts';
import { VIRTUAL as SANDBOX_MANUFACTURER } from '../sandbox/index.ts';
import { pullCommand } from '../../http/demo-commands.ts';

/** What the demo page reads: the consent and its subscription, and what the vehicle supplies. */
export type DemoDeps = Pick<WingContext, 'store' | 'adapters' | 'catalog' | 'vehicleItems'>;

export interface DemoRouteOptions {
  deps: DemoDeps;
  /** Where the consumer application confirms a consent (PORTAL_URL). */
  portalUrl: string;
}

/**
 * `/demo/callback`: where the demo consumer's consent flow comes back to (the redirect URL the
 * demo seed whitelists). It plays the consumer application: it shows what arrived, the next
 * command of the demo block and the confirmation call. Everything shown is escaped.
 */
export default async function demoRoutes(app: FastifyInstance, opts: DemoRouteOptions): Promise<void> {
  const { deps, portalUrl } = opts;
  app.get<{ Querystring: Record<string, unknown> }>('/demo/callback', { schema: { hide: true } }, async (request, reply) => {
    // A parameter given twice (RFC 6749 §3.1 forbids it in a redirect; this page shows what arrived): the first counts.
    const { code, consent_id: consentId, error, error_description: description } = singleValues(request.query, ['code', 'consent_id', 'error', 'error_description']);
    const paragraphs = error
      ? [`The consent flow ended with error "${error}": ${description ?? ''}`, consentId ? `Consent id: ${consentId}` : 'No consent was stored.']
      : [
          `Consent ${consentId || '(none)'} is active: the vehicle's data can now be pulled.`,
          ...(await nextCommand(deps, consentId)),
          'The consumer application may confirm the consent within 10 minutes (optional, single use):',
          `curl -sS -X POST '${portalUrl}/api/consent/provisioning/confirmation/${code ?? ''}' -H "X-API-Key: $CVD_API_KEY"`,
        ];
    return reply
      .code(200)
      .headers(pageHeaders(null))
      .send(renderMessagePage({ title: error ? 'Consent not given' : 'Consent given (demo consumer)', paragraphs, alert: Boolean(error) }));
  });
}

/**
 * Step 3 of the demo block for the consented vehicle: the pull, with the
 * variables step 1 set. Only for an active consent; the id in the URL is the redirect's own.
 * Only what applies to the vehicle is suggested: the pull asks for items it supplies, step 4
 * only when it supplies a pushed item of the subscription, step 5 (the sandbox crash) only for
 * the virtual manufacturer's vehicles (the wing, which serves this page, runs the sandbox in the
 * try-out's api process).
 */
async function nextCommand(services: DemoDeps, consentId: string | undefined): Promise<string[]> {
  const consent = consentId ? await services.store.consents.get(consentId) : null;
  if (!consent?.vin || !ACTIVE_CONSENT_STATES.includes(consent.state)) return [];
  const subscription = await services.store.subscriptions.get(consent.subscriptionId);
  const items = subscription?.dataItems ?? consent.dataItems;
  const manufacturer = services.adapters.forVin(consent.vin)?.manifest.id ?? null;
  const supplied = suppliedItems(services, manufacturer, consent.vin);
  const own = supplied ? items.filter((i) => supplied.has(i)) : items;
  const pushes = own.some((i) => services.catalog.get(i)?.deliveryMethod === 'push');
  const crashes = manufacturer === SANDBOX_MANUFACTURER && own.includes('accidentautomatic');
  const later = pushes ? (crashes ? 'Then step 4 of the block receives its pushes, and step 5 makes it crash.' : 'Then step 4 of the block receives its pushes.') : null;
  return [
    `Next, in the terminal of step 1 of the demo block (it set CVD_URL, CVD_API_KEY and CVD_SUBSCRIPTION_ID), pull the data of ${consent.vin}:`,
    pullCommand(consent.vin, own),
    ...(later ? [later] : []),
  ];
}
