import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Services } from '../../src/services.ts';
import type { DataPoint, DeliveryRecord, VehicleStatus } from '../../src/store/contract.ts';
import { activeConsentRecord, revokeConsent } from '../helpers/consents.ts';

export const S08 = 'V1RTUALV1N0000S08';

/** A vehicle row as vehicle management leaves it. */
export async function seedVehicle(services: Services, subscriptionId: string, vin: string, status: VehicleStatus = 'ACTIVATED') {
  const at = services.clock.now().toISOString();
  await services.store.vehicles.upsert({ subscriptionId, vin, manufacturer: 'virtual', status, createdAt: at, updatedAt: at });
}

/** An ACTIVE consent for the accident event, written through the consent repo as the consent flow leaves it. */
export async function seedConsent(services: Services, consumerId: string, subscriptionId: string, vin: string): Promise<string> {
  const items = ['accidentautomatic'];
  const record = activeConsentRecord(services.clock.now().toISOString(), { consumerId, subscriptionId, vin, dataItems: items, grantedItems: items });
  await services.store.consents.create(record);
  return record.consentId;
}

export { revokeConsent };

/** An accident event as the pipeline hands it over. */
export function crashPoint(vin = S08, at = new Date()): DataPoint {
  return {
    vin,
    item: 'accidentautomatic',
    timestampMs: at.getTime(),
    payload: { receivedAt: at.toISOString(), timestamp: at.toISOString() },
    manufacturer: 'virtual',
    mappingVersion: 'test',
    receivedAt: at.toISOString(),
  };
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted, requests or not. */
  connections: number;
  /** Answers the next requests with these statuses in turn (then 200); a function decides per request. */
  respond: (req: ReceivedRequest, index: number) => { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang';
  /** Resolves when at least n requests have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A local webhook receiver on 127.0.0.1:0 (tests run with PUSH_ALLOW_PRIVATE_TARGETS=true). */
export async function startReceiver(statuses: number[] = []): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const hanging = new Set<() => void>();
  let server: Server;
  const r: Receiver = {
    url: '',
    port: 0,
    requests,
    connections: 0,
    respond: (_req, i) => ({ status: statuses[i] ?? 200 }),
    async waitFor(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > until) throw new Error(`receiver got ${requests.length} of ${n} requests in ${timeoutMs} ms`);
        await new Promise((res) => setTimeout(res, 10));
      }
      return requests;
    },
    async close() {
      for (const release of hanging) release();
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const index = requests.length;
      requests.push(rec);
      const answer = r.respond(rec, index);
      if (answer === 'hang') {
        hanging.add(() => res.destroy());
        return;
      }
      const send = () => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.on('connection', () => r.connections++);
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://127.0.0.1:${r.port}/hooks`;
  return r;
}

/** Polls until `check` returns a value (not undefined/false), or fails after timeoutMs. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

/** The delivery row `id`, polled until it has `status`. */
export function deliveryWithStatus(services: Services, id: string, status: DeliveryRecord['status'], timeoutMs = 10_000): Promise<DeliveryRecord> {
  return eventually(
    async () => {
      const d = await services.store.deliveries.get(id);
      return d?.status === status ? d : undefined;
    },
    timeoutMs,
    `delivery ${status}`,
  );
}
