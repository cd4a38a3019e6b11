import { metrics } from '../metrics/metrics.ts';
import { openSealedJson } from '../queues/sealed-job.ts';
import type { ConsentContext } from './context.ts';
import { DuplicateKeyError, type ConsentRecord } from '../store/contract.ts';

/**
 * A visit of the portal page stores nothing, since anyone may open
 * `GET /provision` for any consumer, and a stored process per visit let one client fill the
 * store and every consumer's list with processes nobody acted on. The STARTED process the visit
 * stands for travels in the page instead, sealed with the service key (AES-256-GCM, so it can be
 * neither read nor altered, and any API process can open it) in the form's `entry` field, and is
 * stored when the user decides (approve or reject). It is the record the visit used to store:
 * bound to the browser session and the CSRF token, stamped with the time the page was shown, so
 * the 10-minute limit runs from the visit as before.
 */
const VERSION = 1;

export function sealEntry(services: Pick<ConsentContext, 'secrets'>, record: ConsentRecord): string {
  return services.secrets.encrypt(JSON.stringify({ v: VERSION, record }));
}

/** The process a form's `entry` stands for; null unless it was sealed here, for this consentId. */
export function openEntry(services: Pick<ConsentContext, 'secrets'>, sealed: unknown, consentId: string): ConsentRecord | null {
  if (typeof sealed !== 'string' || sealed.length > 16_384) return null;
  const opened = openSealedJson(services.secrets, sealed) as { v?: unknown; record?: ConsentRecord } | null;
  if (opened?.v !== VERSION || opened.record?.consentId !== consentId || opened.record.state !== 'STARTED') return null;
  return opened.record;
}

/**
 * Stores the process of an entry the user acted on; null when its consumer or subscription is
 * gone since the visit. A second submit of the same form (a double click) finds it stored.
 */
export async function storeEntry(services: Pick<ConsentContext, 'store'>, record: ConsentRecord): Promise<ConsentRecord | null> {
  const subscription = await services.store.subscriptions.get(record.subscriptionId);
  if (!subscription || subscription.consumerId !== record.consumerId) return null;
  try {
    await services.store.consents.create(record);
    // The consent funnel counts processes as they are stored (src/consent/process.ts).
    metrics.consentFunnel.inc({ state: 'STARTED' });
    return record;
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    return services.store.consents.get(record.consentId);
  }
}
