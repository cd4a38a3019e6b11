import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { Store } from '../../src/store/contract.ts';
import { freePort } from '../helpers/free-port.ts';
import { borealisRecord, borealisRequest, deployment, POINTS_PER_BOREALIS_RECORD, type Deployment } from './service-env.ts';
import { eventually, startService, waitForHttp, type ServiceProcess } from './service-process.ts';

/*
 * A new Node major can break a native addon in ways no unit test sees: better-sqlite3 12 on
 * Node 24 aborted the process (SIGABRT in a statement's destructor) at random moments after
 * writes, and at exit. So: the whole service on the Node that runs this suite, real writes, an
 * erasure (whose SQLite rewrite runs in a worker thread, with its own connection), a SIGTERM,
 * and a clean exit: code 0, no signal.
 */
const VIN_KEPT = 'BRLSRUNT1ME000001';
const VIN_ERASED = 'BRLSRUNT1ME000002';
const ADMIN = 'ops-admin-token-0001';

describe(`the service on this Node (${process.version})`, () => {
  let d: Deployment;
  let service: ServiceProcess;
  let origin: string;
  let store: Store | undefined;

  beforeAll(async () => {
    d = deployment(inject('redisUrl'));
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    service = startService('node-runtime', { env: d.env({ PORT: String(port), ROLES: 'api,pipeline,push' }) });
    await waitForHttp(`${origin}/ready`, 200, 60_000, service);
  });

  afterAll(async () => {
    await store?.close();
    await service?.stop();
    d?.cleanup();
  });

  it('stores data, erases a VIN, then stops on SIGTERM with exit code 0 and no signal', async () => {
    const records = [0, 1, 2, 3, 4].flatMap((i) => [borealisRecord(VIN_KEPT, 1_795_600_000 + i), borealisRecord(VIN_ERASED, 1_795_600_000 + i)]);
    const { body, headers } = borealisRequest(records);
    const ingest = await fetch(`${origin}/ingest/v1/borealis`, { method: 'POST', headers, body });
    expect(ingest.status).toBe(202);

    store = await d.store();
    const stored = (vin: string) => store!.dataPoints.history({ vin, item: 'mileage', limit: 100 }).then((p) => p.items.length);
    await eventually(async () => (await stored(VIN_KEPT)) === 5 && (await stored(VIN_ERASED)) === 5, 'both VINs stored', 30_000);

    const erase = await fetch(`${origin}/admin/v1/vehicles/${VIN_ERASED}/data`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } });
    expect(erase.status).toBe(200);
    const receipt = (await erase.json()) as { erased: { dataPoints: number } };
    expect(receipt.erased.dataPoints).toBe(5 * POINTS_PER_BOREALIS_RECORD);
    expect(await stored(VIN_ERASED)).toBe(0);
    expect(await stored(VIN_KEPT)).toBe(5);
    await store.close();
    store = undefined;

    const exit = await service.stop(30_000);
    expect(exit, service.lines.slice(-20).join('\n')).toEqual({ code: 0, signal: null });
    expect(service.lines.join('\n')).not.toMatch(/Assertion failed|Segmentation fault|core dumped/);
  });
});
