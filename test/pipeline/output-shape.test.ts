import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/adapters/manifest.ts';
import { compileMappingSource } from '../../src/mapping/compile.ts';
import { analyse } from '../../src/pipeline/harmonize.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

/**
 * A mapping whose output has the wrong shape is quarantined (OUTPUT_INVALID) with a reason that
 * names what is wrong — above all a missing `vin`, the commonest slip when a raw field is
 * renamed — rather than a general "must be {vin, items}". The real borealis adapter, its
 * mapping swapped for each broken one.
 */
describe('pipeline: a mapping output of the wrong shape says what is wrong', () => {
  let t: TestServices;
  let borealis: Adapter;
  beforeAll(async () => {
    t = await createTestServices();
    borealis = t.services.adapters.get('borealis')!;
  });
  afterAll(() => t.cleanup());

  const withMapping = (source: string): Adapter => ({ ...borealis, mappings: new Map([['vehicle-status', compileMappingSource('broken.jsonata', source)]]) });
  const run = (source: string) =>
    analyse(withMapping(source), t.services.catalog, {
      manufacturer: 'borealis',
      messageType: 'vehicle-status',
      receivedAt: '2026-11-25T10:00:00.000Z',
      body: JSON.stringify({ vehicle: { vinNumber: 'BRLAU1EV0N1000001' }, odo: 5 }),
      encoding: 'utf8',
    });
  const mileage = `{"value": odo, "unit": "km", "timestamp": "2026-11-25T10:00:00Z"}`;

  it.each([
    ['no vin at all', `{"items": {"mileage": ${mileage}}}`, /^the mapping output has no "vin"/],
    ['a vin expression that found nothing', `{"vin": vehicle.vin, "items": {"mileage": ${mileage}}}`, /^the mapping output has no "vin" \(the expression for it found nothing/],
    ['a vin that is a number', `{"vin": 17, "items": {"mileage": ${mileage}}}`, /^the mapping output has a "vin" that is a number \(17\), not a string/],
    ['no items', `{"vin": vehicle.vinNumber}`, /^the mapping output has no "items"/],
    ['items as a list', `{"vin": vehicle.vinNumber, "items": [1, 2]}`, /has "items" that is an array, not an object/],
    ['a text', `"hello"`, /^the mapping output is a string \("hello"\), not an object/],
    ['the second of two elements without vin', `[{"vin": vehicle.vinNumber, "items": {"mileage": ${mileage}}}, {"items": {}}]`, /^element 1 of the mapping output has no "vin"/],
  ])('%s', async (_name, source, reason) => {
    const analysis = await run(source);
    expect(analysis.failure?.code).toBe('OUTPUT_INVALID');
    expect(analysis.failure?.reason).toMatch(reason);
    expect(analysis.failure?.reason).toContain('a mapping returns {"vin": string, "items": {...}}');
  });

  it('a good output passes', async () => {
    const analysis = await run(`{"vin": vehicle.vinNumber, "items": {"mileage": ${mileage}}}`);
    expect(analysis.failure).toBeUndefined();
    expect(analysis.candidates.map((c) => c.item)).toEqual(['mileage']);
  });
});
