import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAcceptor } from '../../../src/transports/accept.ts';
import { createPollApiClient } from '../../../src/transports/poll/api-client.ts';
import { pollVehicle, type PollDeps } from '../../../src/transports/poll/poll-vehicle.ts';
import { createApiRateLimiter } from '../../../src/transports/poll/rate-limiter.ts';
import type { NextPoll } from '../../../src/transports/poll/schedule.ts';
import type { PollJob } from '../../../src/queues/poll-job.ts';
import { systemClock } from '../../../src/clock.ts';
import { createTestServices, type TestServices } from '../../helpers/services.ts';

/*
 * A hostile (or broken) polled manufacturer API, over real HTTP: four 50 MB pages once raised the
 * process's RSS from 150 to 750 MB and filled the store, Redis and the quarantine list, and a page
 * that was not JSON or had no cursor was retried for ever with only a log line. Now a page is
 * read as it streams up to POLL_MAX_PAGE_BYTES, a longer one is a failed poll quarantined with
 * its first bytes only, and an unusable page is quarantined after POLL_BAD_PAGE_TRIES tries.
 */
const VIN = 'KESTRELV1N0000002';
const MB = 1024 * 1024;

type Mode = 'huge' | 'huge-declared' | 'not-json' | 'no-cursor' | 'good';

describe('a polled API that answers what it should not', () => {
  let server: Server;
  let t: TestServices;
  let deps: PollDeps;
  let mode: Mode = 'good';
  let tokenMode: 'good' | 'huge' = 'good';
  /** Bytes the server managed to write of its last page before the client hung up. */
  let written = 0;

  /** Writes `total` bytes of a page that never ends well, as fast as the socket takes them. */
  function stream(res: ServerResponse, total: number): void {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    written = 0;
    const pump = (): void => {
      while (written < total) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('error', () => undefined);
    res.write('{"signals": ["');
    pump();
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.includes('/oauth/token')) {
        if (tokenMode === 'huge') return stream(res.writeHead(200, { 'content-type': 'application/json' }), 50 * MB);
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'tok', expires_in: 3600 }));
      }
      switch (mode) {
        case 'huge':
          return stream(res.writeHead(200, { 'content-type': 'application/json' }), 50 * MB);
        case 'huge-declared':
          return stream(res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * MB + 14) }), 50 * MB);
        case 'not-json':
          return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Maintenance</body></html>');
        case 'no-cursor':
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ signals: [], hasMore: false }));
        case 'good':
          return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ signals: [], nextCursor: 'c2', hasMore: false }));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestServices({ clock: systemClock, env: { PUBLIC_URL: origin, POLL_BACKOFF_BASE_MS: '1000' } });
    const { services } = t;
    const limiter = createApiRateLimiter({ redis: services.redis, clock: services.clock, prefix: services.config.QUEUE_PREFIX, manufacturer: 'kestrel', maxRequestsPerS: 1000 });
    const client = createPollApiClient(services, services.adapters.get('kestrel')!, limiter);
    deps = { services, acceptor: createAcceptor(services), client: () => client };
    const at = new Date().toISOString();
    await services.store.vehicles.upsert({ subscriptionId: 's1', vin: VIN, manufacturer: 'kestrel', status: 'ACTIVATED', createdAt: at, updatedAt: at });
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await t?.cleanup();
  });
  beforeEach(async () => {
    mode = 'good';
    tokenMode = 'good';
    const all = await t.services.store.quarantine.list({}, 1000);
    await t.services.store.quarantine.remove(all.items.map((e) => e.id));
  });

  const job = (failures = 0): PollJob => ({ manufacturer: 'kestrel', vin: VIN, cursor: 'c1', failures });
  const quarantined = async () => (await t.services.store.quarantine.list({}, 100)).items;

  it.each(['huge', 'huge-declared'] as const)('a 50 MB page (%s) is abandoned at POLL_MAX_PAGE_BYTES: a failed poll, quarantined with its first bytes', async (m) => {
    mode = m;
    const next = (await pollVehicle(deps, job())) as NextPoll;
    // Counted: the cursor stays, the vehicle backs off.
    expect(next).toEqual({ delayMs: 1000, job: job(1) });
    const [entry] = await quarantined();
    expect(entry).toMatchObject({ code: 'POLL_PAGE_INVALID', manufacturer: 'kestrel', messageType: 'signals', vin: VIN, rawTruncated: true, failures: 1 });
    expect(entry!.reason).toContain('more than POLL_MAX_PAGE_BYTES (1048576 bytes)');
    expect(Buffer.byteLength(entry!.raw)).toBeLessThanOrEqual(4096);
    expect(entry!.raw.startsWith('{"signals": ["xxx')).toBe(true);
    // The client hung up: the server could not push the 50 MB (what is in flight in socket buffers aside).
    await new Promise((r) => setTimeout(r, 200));
    expect(written).toBeLessThan(20 * MB);
  });

  it.each([
    ['not-json', 'the API answered a page that is not JSON'],
    ['no-cursor', 'the API answered a page without "nextCursor"'],
  ] as const)('a page that is %s is quarantined after POLL_BAD_PAGE_TRIES (3) tries in a row, and counted again after', async (m, reason) => {
    mode = m;
    let state = job();
    for (let i = 1; i <= 2; i++) {
      state = ((await pollVehicle(deps, state)) as NextPoll).job;
      expect(state.failures).toBe(i);
      expect(await quarantined()).toEqual([]);
    }
    state = ((await pollVehicle(deps, state)) as NextPoll).job;
    expect(state).toEqual(job(3));
    const [entry] = await quarantined();
    expect(entry).toMatchObject({ code: 'POLL_PAGE_INVALID', vin: VIN, rawTruncated: false, failures: 1, reason: `${reason}; 3 tries in a row` });
    await new Promise((r) => setTimeout(r, 5));
    await pollVehicle(deps, state);
    expect((await quarantined()).map((e) => e.failures)).toEqual([2]);
    // The API recovers: the cursor moves on.
    mode = 'good';
    expect(await pollVehicle(deps, state)).toMatchObject({ job: { cursor: 'c2', failures: 0 } });
  });

  it('a 50 MB token answer is a failed poll, not 50 MB in memory', async () => {
    tokenMode = 'huge';
    // A client of its own: the others hold a token already.
    const { services } = t;
    const limiter = createApiRateLimiter({ redis: services.redis, clock: services.clock, prefix: services.config.QUEUE_PREFIX, manufacturer: 'kestrel', maxRequestsPerS: 1000 });
    const fresh = createPollApiClient(services, services.adapters.get('kestrel')!, limiter);
    const next = (await pollVehicle({ ...deps, client: () => fresh }, job())) as NextPoll;
    expect(next.job.failures).toBe(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(written).toBeLessThan(20 * MB);
    expect(t.logs.join('\n')).toContain('token endpoint answered more than POLL_MAX_PAGE_BYTES');
  });
});
