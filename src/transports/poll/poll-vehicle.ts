import { POLL_DEFAULTS, type PollTransport } from './kind.ts';
import { isActivatedFor } from '../../management/poll-schedule.ts';
import { quarantineIdOf, rawMessage } from '../../domain/raw-message.ts';
import { metrics } from '../../metrics/metrics.ts';
import type { PollJob } from '../../queues/poll-job.ts';
import type { IngestContext } from '../deps.ts';
import { capRaw } from '../../store/contract/quarantine.ts';
import type { Acceptor } from '../accept.ts';
import type { PageOutcome, PollApiClient } from './api-client.ts';
import { nextPoll, type NextPoll } from './schedule.ts';

export interface PollDeps {
  services: Pick<IngestContext, 'config' | 'adapters' | 'store' | 'logger' | 'secrets' | 'clock'>;
  acceptor: Pick<Acceptor, 'accept'>;
  /** The API client of a polled manufacturer (one per manufacturer and process). */
  client(manufacturer: string): PollApiClient;
}

/** A job that ends: its manufacturer is gone or no longer polled, or no subscription has the vehicle activated. */
export interface DropPoll {
  drop: string;
}

/**
 * One poll of one vehicle: fetch the page after the job's cursor and hand it to ingest like any
 * transport's arrival. The order is what makes a crash harmless: the caller stores the new
 * cursor only after this returns, and this returns only once the page is durably queued, so a
 * worker killed in between fetches the same page again, and storage (idempotent on VIN, item and
 * time) keeps each point once.
 */
export async function pollVehicle(deps: PollDeps, job: PollJob): Promise<NextPoll | DropPoll> {
  const { services } = deps;
  const { config, logger } = services;
  const adapter = services.adapters.get(job.manufacturer);
  const t = adapter?.manifest.transport;
  if (!adapter || t?.kind !== 'poll') return { drop: 'the manufacturer is not a polled one in this deployment' };
  if (!(await isActivatedFor(services.store, job.manufacturer, job.vin))) return { drop: 'no subscription has the vehicle activated' };

  let outcome = await deps.client(job.manufacturer).fetchPage(job.vin, job.cursor);
  if (outcome.kind === 'page') outcome = await hand(deps, job, t, outcome);
  const vin = services.secrets.pseudonym(job.vin);
  if (outcome.kind === 'bad-page') await quarantinePage(deps, job, t, outcome);
  if (outcome.kind === 'failed' || outcome.kind === 'bad-page') {
    logger.warn({ manufacturer: job.manufacturer, vin, reason: outcome.reason, failures: job.failures + 1 }, 'poll failed; backing off');
  }
  if (outcome.kind === 'not-shared') logger.warn({ manufacturer: job.manufacturer, vin }, 'the manufacturer does not share this vehicle (404); asking again after the interval');
  return nextPoll(job, outcome, {
    intervalMs: (config.POLL_INTERVAL_S ?? t.intervalS ?? POLL_DEFAULTS.intervalS) * 1000,
    backoffBaseMs: config.POLL_BACKOFF_BASE_MS,
    backoffMaxMs: config.POLL_BACKOFF_MAX_S * 1000,
  });
}

/**
 * A page that cannot be used goes to quarantine, where an operator sees it, rather than only
 * into a log line at every back-off: at once when it was over POLL_MAX_PAGE_BYTES (its start
 * only), after POLL_BAD_PAGE_TRIES tries in a row when it was not JSON or had no cursor (an API
 * in the middle of a deployment answers one odd page, not three). Each later try counts as a
 * further failure of the same entry while the page stays the same. A store that refuses the
 * entry leaves the log line only: the page comes again at the next poll.
 */
async function quarantinePage(deps: PollDeps, job: PollJob, t: PollTransport, page: Extract<PageOutcome, { kind: 'bad-page' }>): Promise<void> {
  const { config, store, logger, clock, secrets } = deps.services;
  const failures = job.failures + 1;
  if (!page.cut && failures < config.POLL_BAD_PAGE_TRIES) return;
  const at = clock.now().toISOString();
  const msg = rawMessage({ manufacturer: job.manufacturer, messageType: t.messageType, receivedAt: at }, page.body);
  const { raw, rawTruncated } = capRaw(msg.body, msg.encoding, config.QUARANTINE_MAX_RAW_BYTES);
  const kept = page.cut ? `; its first ${page.body.length} bytes are kept` : `; ${failures} tries in a row`;
  try {
    await store.quarantine.put({
      id: quarantineIdOf(msg),
      manufacturer: job.manufacturer,
      messageType: t.messageType,
      code: 'POLL_PAGE_INVALID',
      reason: `${page.reason}${kept}`,
      mappingVersion: null,
      vin: job.vin,
      topic: null,
      raw,
      rawEncoding: msg.encoding,
      rawTruncated: page.cut || rawTruncated,
      receivedAt: at,
      quarantinedAt: at,
      lastFailedAt: at,
      failures: 1,
    });
    metrics.mappingFailures.inc({ manufacturer: job.manufacturer, reason: 'POLL_PAGE_INVALID' });
  } catch (err) {
    logger.warn({ manufacturer: job.manufacturer, vin: secrets.pseudonym(job.vin), err: (err as Error).message }, 'the polled page could not be quarantined');
  }
}

/**
 * Hands a page to ingest (an empty one has nothing to map: its cursor alone moves on). A queue
 * that refuses it makes the poll a failure: the cursor stays, the page is fetched again later.
 */
async function hand(deps: PollDeps, job: PollJob, t: PollTransport, page: Extract<PageOutcome, { kind: 'page' }>): Promise<PageOutcome> {
  if (page.signals === 0) return page;
  try {
    await deps.acceptor.accept({
      manufacturer: job.manufacturer,
      transport: 'poll',
      messages: [{ messageType: t.messageType, bytes: page.text }],
      what: 'a polled page',
      // The page was read within its own cap (./read-capped.ts); the poller waits for the answer.
      batching: 'now',
      refused: { consequence: 'the page is fetched again later' },
    });
    return page;
  } catch (err) {
    return { kind: 'failed', reason: `the page could not be queued: ${(err as Error).message}` };
  }
}
