import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyse } from '../../src/pipeline/harmonize.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';
import { rawFixtures, toRawMessage, withVin } from './data-minimisation-inject.ts';

/**
 * The pipeline stores a data point only under a real VIN of the manufacturer that sent it: a
 * mapping that yields a truncated, padded or garbled VIN (still starting with a claimed prefix)
 * must quarantine the message, or its data would sit under a key no consumer can ever ask for
 * (delivery refuses such VINs with CAR.VE.901) and that erasure by VIN would never find.
 * Real mappings, catalog and adapters of both manufacturers.
 */
describe('pipeline: the VIN a mapping yields must be a VIN', () => {
  let t: TestServices;
  beforeAll(async () => {
    t = await createTestServices();
  });
  afterAll(() => t.cleanup());

  const fixtures = rawFixtures().filter((f) => f.name.includes('telemetry') || f.manufacturer === 'borealis');
  const valid = { virtual: 'V1RTUALV1N0000001', borealis: 'BRLEU1EV0N1000001' } as const;

  it.each(fixtures.map((f) => [f.name, f] as const))('%s: a claimed prefix alone, a VIN with lower case or I/O/Q, or one too long is VIN_INVALID', async (_name, f) => {
    const adapter = t.services.adapters.get(f.manufacturer)!;
    const ok = await analyse(adapter, t.services.catalog, toRawMessage(f, withVin(f, valid[f.manufacturer]), '2026-11-25T10:20:00.000Z'));
    expect(ok.failure).toBeUndefined();
    const prefix = adapter.manifest.vinPrefixes[0]!;
    for (const bad of [prefix, `${valid[f.manufacturer]}X`, valid[f.manufacturer].slice(0, 16) + 'o', valid[f.manufacturer].slice(0, 16) + 'I']) {
      const analysis = await analyse(adapter, t.services.catalog, toRawMessage(f, withVin(f, bad), '2026-11-25T10:20:00.000Z'));
      expect(analysis.failure?.code, bad).toBe('VIN_INVALID');
      expect(analysis.failure?.reason).toMatch(/not a valid VIN/);
      expect(analysis.candidates).toEqual([]);
    }
  });
});
