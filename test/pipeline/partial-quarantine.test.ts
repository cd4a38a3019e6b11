import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/adapters/manifest.ts';
import type { AdapterRegistry } from '../../src/adapters/registry.ts';
import { quarantineIdOf, rawMessage } from '../../src/domain/raw-message.ts';
import { processBatch } from '../../src/pipeline/process-batch.ts';
import { createPushFanoutEnqueuer } from '../../src/push/fanout/fanout.ts';
import type { PushFanoutEnqueuer } from '../../src/pipeline/fanout-contract.ts';
import type { Services } from '../../src/services.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

const VIN = 'BRLAU1EV0N1000001';
/** One borealis reading: a heading of 400° and a fuel level of -3 % next to a good odometer and speed. */
const reading = {
  recordType: 'vehicle-status',
  vehicle: { vinNumber: VIN },
  readings: [{ capturedAt: 1795600800, samples: [{ channel: 'HEADING', value: 400 }, { channel: 'FUEL_LEVEL', value: -3 }, { channel: 'ODOMETER', value: 5, uom: 'km' }, { channel: 'SPEED', value: 30, uom: 'kmh' }] }],
};

/*
 * Valid items are not lost with an invalid one, where the manufacturer's manifest says so
 * (`invalidItems: quarantine-items`): the message's valid items are stored, and the message is
 * quarantined naming only the failing items, under the message's own reference. Without the
 * option the whole message is quarantined, as before. The real borealis adapter and mapping.
 */
describe('a manifest that quarantines failing items alone', () => {
  let t: TestServices;
  let fanout: PushFanoutEnqueuer;
  beforeAll(async () => {
    t = await createTestServices();
    fanout = createPushFanoutEnqueuer(t.services);
  });
  afterAll(async () => {
    await fanout.close();
    await t.cleanup();
  });

  /** The services with borealis' manifest as given. */
  const withBorealis = (invalidItems: Adapter['manifest']['invalidItems']): Services => {
    const real = t.services.adapters.get('borealis')!;
    const borealis: Adapter = { ...real, manifest: { ...real.manifest, ...(invalidItems ? { invalidItems } : {}) } };
    const adapters: AdapterRegistry = {
      list: () => t.services.adapters.list().map((a) => (a.manifest.id === 'borealis' ? borealis : a)),
      get: (id) => (id === 'borealis' ? borealis : t.services.adapters.get(id)),
      forVin: (vin) => (t.services.adapters.forVin(vin)?.manifest.id === 'borealis' ? borealis : t.services.adapters.forVin(vin)),
    };
    return { ...t.services, adapters };
  };
  const message = (receivedAt: string, extra = 0) => rawMessage({ manufacturer: 'borealis', messageType: 'vehicle-status', receivedAt }, JSON.stringify({ ...reading, batch: extra }));
  const stored = async () => (await t.services.store.dataPoints.latest([VIN], ['mileage', 'vehiclespeed', 'vehicleheading', 'fuellevel'])).map((p) => p.item).sort();

  it('by default, one bad value quarantines the whole message and stores none of its items', async () => {
    const msg = message('2026-11-25T10:00:05.000Z', 1);
    const outcome = await processBatch(withBorealis(undefined), fanout, [msg]);
    expect(outcome).toMatchObject({ stored: 0, quarantined: 1 });
    const [entry] = await t.services.store.quarantine.get([quarantineIdOf(msg)]);
    expect(entry).toMatchObject({ code: 'SCHEMA_VIOLATION', raw: msg.body });
    expect(entry).not.toHaveProperty('failedItems');
    expect(await stored()).toEqual([]);
  });

  it('with invalidItems: quarantine-items, the valid items are stored and only the failing ones quarantined, with the message reference', async () => {
    const msg = message('2026-11-25T10:00:05.000Z', 2);
    const outcome = await processBatch(withBorealis('quarantine-items'), fanout, [msg]);
    expect(outcome).toMatchObject({ stored: 2, quarantined: 1 });
    expect(await stored()).toEqual(['mileage', 'vehiclespeed']);
    const [entry] = await t.services.store.quarantine.get([quarantineIdOf(msg)]);
    expect(entry).toMatchObject({
      manufacturer: 'borealis',
      messageType: 'vehicle-status',
      code: 'SCHEMA_VIOLATION',
      vin: VIN,
      raw: msg.body,
      receivedAt: '2026-11-25T10:00:05.000Z',
      failedItems: ['vehicleheading', 'fuellevel'],
      failures: 1,
    });
    expect(entry!.reason).toBe('2 of 4 items quarantined (the other 2 were stored): vehicleheading: /value must be <= 360; fuellevel: /value must be >= 0');

    // The same message again (a redelivered batch): nothing stored twice, counted once.
    expect(await processBatch(withBorealis('quarantine-items'), fanout, [msg])).toMatchObject({ stored: 0, quarantined: 1 });
    expect((await t.services.store.quarantine.get([quarantineIdOf(msg)]))[0]!.failures).toBe(1);
  });

  it('still quarantines a message with no valid item at all, whole', async () => {
    const bad = rawMessage(
      { manufacturer: 'borealis', messageType: 'vehicle-status', receivedAt: '2026-11-25T10:00:05.000Z' },
      JSON.stringify({ ...reading, batch: 3, readings: [{ capturedAt: 1795600800, samples: [{ channel: 'HEADING', value: 400 }] }] }),
    );
    expect(await processBatch(withBorealis('quarantine-items'), fanout, [bad])).toMatchObject({ stored: 0, quarantined: 1 });
    expect((await t.services.store.quarantine.get([quarantineIdOf(bad)]))[0]).not.toHaveProperty('failedItems');
  });

  it('refuses an unknown value of the option at start, naming the manifest', async () => {
    const { loadAdapterRegistry } = await import('../../src/adapters/registry.ts');
    const { mkdtempSync, cpSync, readFileSync, writeFileSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'cvd-invalid-items-'));
    try {
      cpSync(t.services.paths.adapters, join(dir, 'adapters'), { recursive: true });
      const file = join(dir, 'adapters', 'borealis', 'manifest.json');
      writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), invalidItems: 'store-some' }));
      const items = new Set(t.services.catalog.list().map((e) => e.technicalName));
      await expect(loadAdapterRegistry(join(dir, 'adapters'), items, { mappingsDir: t.services.paths.mappings })).rejects.toThrow(/adapters\/borealis\/manifest\.json.*invalidItems/s);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
