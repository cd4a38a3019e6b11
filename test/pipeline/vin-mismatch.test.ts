import { afterEach, describe, expect, it } from 'vitest';
import { electricTelemetryOf, startHarness, waitFor, type Harness } from './harness.ts';

const TOPIC_VIN = 'V1RTUALV1N0000003';
const BODY_VIN = 'V1RTUALV1N0000004';

/**
 * A publisher may speak only for its own vehicles: the virtual manufacturer's topic names the vehicle (vinTopicLevel 2 in its
 * manifest). A message whose body names another VIN is quarantined as VIN_MISMATCH and stored
 * for neither vehicle: over the embedded broker here, over an external one in
 * external-broker.test.ts (the same pipeline behind both).
 */
describe('embedded broker: the topic’s VIN is held against the payload’s', () => {
  let h: Harness;
  afterEach(async () => h?.stop());

  it('quarantines a message whose body names another vehicle than its topic (VIN_MISMATCH), storing nothing', async () => {
    h = await startHarness();
    const { store, catalog } = h.services;
    const client = await h.connect();
    await client.publishAsync(`virtual/v1/${TOPIC_VIN}/telemetry`, electricTelemetryOf(BODY_VIN), { qos: 1 });
    await waitFor(async () => (await store.quarantine.count()) === 1, 10_000, 'the message quarantined');
    const [entry] = (await store.quarantine.list({ code: 'VIN_MISMATCH' }, 10)).items;
    expect(entry).toMatchObject({
      manufacturer: 'virtual',
      code: 'VIN_MISMATCH',
      vin: TOPIC_VIN,
      topic: `virtual/v1/${TOPIC_VIN}/telemetry`,
      reason: `the message names VIN ${BODY_VIN} but its topic names "${TOPIC_VIN}"`,
    });
    // The same body on its own vehicle's topic is stored: the pipeline was running all along.
    await client.publishAsync(`virtual/v1/${BODY_VIN}/telemetry`, electricTelemetryOf(BODY_VIN), { qos: 1 });
    const items = catalog.list().map((e) => e.technicalName);
    await waitFor(async () => (await store.dataPoints.latest([BODY_VIN], items)).length === 30, 10_000, '30 points of the matching message');
    expect(await store.dataPoints.latest([TOPIC_VIN], items)).toEqual([]);
    expect(await store.dataPoints.count()).toBe(30);
    expect(await store.quarantine.count()).toBe(1);
  });
});
