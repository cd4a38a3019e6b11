import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import { createIngest } from '../../src/pipeline/ingest.ts';
import { processBatch } from '../../src/pipeline/process-batch.ts';
import { reprocessQuarantined } from '../../src/pipeline/reprocess.ts';
import type { QuarantinedMessage } from '../../src/store/contract.ts';
import { batchServices } from './harness.ts';
import { routeContexts } from '../../src/main/route-contexts.ts';

/*
 * Quarantined raw messages are bounded: an entry keeps at most QUARANTINE_MAX_RAW_BYTES of its
 * message (four 50 MB pages once made the admin list answer 248 MB), and the admin list pages by
 * bytes (QUARANTINE_PAGE_MAX_BYTES) as well as by count.
 */
describe('quarantine: bounded raw messages and pages', () => {
  const batch = batchServices({ QUARANTINE_MAX_RAW_BYTES: '2048', QUARANTINE_PAGE_MAX_BYTES: '5000', ADMIN_TOKEN: 'test-admin-token' });

  it('keeps the first QUARANTINE_MAX_RAW_BYTES of a longer message, says so, and does not reprocess it', async () => {
    const { services } = batch.t;
    // Not JSON (DECODE_FAILED), 10 KB of text with multi-byte characters at the cut.
    const long = rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: '2026-11-25T10:00:00.000Z' }, `V1RTUALV1N0000001 ${'é'.repeat(5000)}`);
    const short = rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: '2026-11-25T10:00:01.000Z' }, 'not json either');
    const bytes = rawMessage({ manufacturer: 'virtual', messageType: 'telemetry', receivedAt: '2026-11-25T10:00:02.000Z' }, Buffer.alloc(5000, 0xff));
    expect((await processBatch(services, batch.fanout, [long, short, bytes])).quarantined).toBe(3);
    const entries = (await services.store.quarantine.list({}, 10)).items;
    const cut = entries.find((e) => e.receivedAt === long.receivedAt)!;
    expect(cut).toMatchObject({ code: 'DECODE_FAILED', rawTruncated: true, rawEncoding: 'utf8', vin: 'V1RTUALV1N0000001' });
    expect(Buffer.byteLength(cut.raw)).toBeLessThanOrEqual(2048);
    expect(Buffer.byteLength(cut.raw)).toBeGreaterThan(2040);
    expect(long.body.startsWith(cut.raw)).toBe(true);
    const cutBytes = entries.find((e) => e.receivedAt === bytes.receivedAt)!;
    expect(cutBytes).toMatchObject({ rawEncoding: 'base64', rawTruncated: true });
    expect(Buffer.from(cutBytes.raw, 'base64')).toEqual(Buffer.alloc(2048, 0xff));
    expect(entries.find((e) => e.receivedAt === short.receivedAt)).toMatchObject({ raw: 'not json either', rawTruncated: false });

    const ingest = createIngest(services);
    try {
      expect(await reprocessQuarantined(services, ingest, { ids: entries.map((e) => e.id) })).toBe(1);
    } finally {
      await ingest.close();
    }
  });

  it('the admin list ends a page at QUARANTINE_PAGE_MAX_BYTES of raw messages; the cursor goes on from there', async () => {
    const { services } = batch.t;
    const at = (s: number) => new Date(Date.parse('2026-11-26T10:00:00.000Z') + s * 1000).toISOString();
    for (let i = 0; i < 7; i++) {
      await services.store.quarantine.put({
        id: `big${i}`, manufacturer: 'borealis', messageType: 'vehicle-status', code: 'DECODE_FAILED', reason: 'x', mappingVersion: null, vin: null, topic: null,
        raw: String(i).repeat(2000), rawEncoding: 'utf8', rawTruncated: false, receivedAt: at(i), quarantinedAt: at(i), lastFailedAt: at(i), failures: 1,
      });
    }
    const app = await buildApp(services, routeContexts(services));
    try {
      const seen: string[] = [];
      let cursor = '';
      let pages = 0;
      do {
        const res = await app.inject({ method: 'GET', url: `/admin/v1/quarantine?manufacturer=borealis&limit=100${cursor ? `&cursor=${cursor}` : ''}`, headers: { authorization: 'Bearer test-admin-token' } });
        expect(res.statusCode).toBe(200);
        const page = res.json() as { items: QuarantinedMessage[]; nextCursor: string | null };
        // 2,000 bytes each: two fit in 5,000.
        expect(page.items.length).toBeLessThanOrEqual(2);
        expect(page.items.every((e) => e.rawTruncated === false)).toBe(true);
        seen.push(...page.items.map((e) => e.id));
        cursor = page.nextCursor ?? '';
        pages++;
      } while (cursor);
      expect(seen).toEqual(['big6', 'big5', 'big4', 'big3', 'big2', 'big1', 'big0']);
      expect(pages).toBe(4);
    } finally {
      await app.close();
    }
  });
});
