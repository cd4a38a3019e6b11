import { describe, expect, it } from 'vitest';
import { processBatch } from '../../src/pipeline/process-batch.ts';
import { batchServices } from './harness.ts';
import { rawFixtures, toRawMessage, withVin } from './data-minimisation-inject.ts';

/** The raw message with its latitude wrapped in `depth` levels of arrays (JSON.stringify would overflow). */
function withDeepLatitude(body: Record<string, unknown>, depth: number): string {
  const marker = '"__deep__"';
  ((body.signals as Record<string, unknown>).position as Record<string, unknown>).lat = '__deep__';
  return JSON.stringify(body).replace(marker, `${'['.repeat(depth)}49.00937${']'.repeat(depth)}`);
}

/**
 * A message with a value nested thousands of levels deep (11 KB of `[`) must be quarantined on
 * its own: before, turning the mapping's output into plain JSON overflowed the stack outside the
 * per-message error handling, so the whole batch, with every other vehicle's acknowledged
 * message, failed and was retried until it was dropped. Real mappings, catalog, SQLite store
 * and the suite's Redis.
 */
describe('pipeline: a deeply nested message is quarantined alone', () => {
  const batch = batchServices();

  it('the good message of the same batch is stored; the deep one is MAPPING_LIMIT', async () => {
    const f = rawFixtures().find((x) => x.name === 'virtual.telemetry.combustion.json')!;
    const goodBody = withVin(f, 'V1RTUALV1N0000001');
    const receivedAt = '2026-11-25T10:20:00.000Z';
    const deepBody = withVin(f, 'V1RTUALV1N0000002');
    const deep = { ...toRawMessage(f, deepBody, receivedAt), body: withDeepLatitude(deepBody, 5000) };
    const outcome = await processBatch(batch.t.services, batch.fanout, [deep, toRawMessage(f, goodBody, receivedAt)]);
    expect(outcome.quarantined).toBe(1);
    expect(outcome.stored).toBeGreaterThan(10);
    const [entry] = (await batch.t.services.store.quarantine.list({}, 10)).items;
    expect(entry).toMatchObject({ code: 'MAPPING_LIMIT', vin: 'V1RTUALV1N0000002' });
    expect(entry!.reason).toMatch(/nested more than \d+ levels/);
    // The operator's log line says why (the failure code is not mistaken for a secret "code").
    const line = batch.t.logs.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.msg === 'raw message quarantined');
    expect(line).toMatchObject({ quarantineCode: 'MAPPING_LIMIT', manufacturer: 'virtual' });
  });
});
