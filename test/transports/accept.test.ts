import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { metrics } from '../../src/metrics/metrics.ts';
import { QUEUE_NAMES } from '../../src/queues/keys.ts';
import { createAcceptor, type Acceptor, type Arrival } from '../../src/transports/accept.ts';
import { openTestQueue } from '../helpers/queues.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

/**
 * accept() takes what it needs from the arrival, never from the transport's name: an arrival of
 * a kind it has never heard of ("amqp") is size-checked, batched and counted as it says.
 */
describe('accept(): the one door, whatever the transport', () => {
  let t: TestServices;
  let acceptor: Acceptor;
  beforeEach(async () => {
    t = await createTestServices();
    acceptor = createAcceptor(t.services);
  });
  afterEach(async () => {
    await acceptor.close();
    await t.cleanup();
  });

  const arrival = (bytes: string[], extra: Partial<Arrival> = {}): Arrival => ({
    manufacturer: 'borealis',
    transport: 'amqp',
    messages: bytes.map((b) => ({ messageType: 'vehicle-status', bytes: b })),
    what: 'an AMQP delivery',
    batching: 'now',
    refused: { consequence: 'not settling the delivery' },
    ...extra,
  });
  const waitingBatches = async () => {
    const q = openTestQueue({ redisUrl: t.services.redisUrl, prefix: t.services.config.QUEUE_PREFIX }, QUEUE_NAMES.harmonize);
    try {
      return (await q.getJobCounts('wait')).wait;
    } finally {
      await q.close();
    }
  };
  const counted = async (name: 'ingestMessages' | 'ingestRejected', labels: Record<string, string>) =>
    (await metrics[name].get()).values.filter((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x)).reduce((n, v) => n + v.value, 0);

  it('drops for good what is over the size limit the arrival names, and queues nothing of it', async () => {
    const before = await counted('ingestRejected', { manufacturer: 'borealis', reason: 'too_large' });
    const queued = await acceptor.accept(arrival(['{"small":1}', 'x'.repeat(65)], { sizeLimit: { bytes: 64, setting: 'AMQP_MAX_BYTES' } }));
    expect(queued).toBe(0);
    expect(await waitingBatches()).toBe(0);
    expect(await counted('ingestRejected', { manufacturer: 'borealis', reason: 'too_large' })).toBe(before + 1);
    expect(t.logs.some((l) => l.includes('an AMQP delivery over AMQP_MAX_BYTES acknowledged and dropped'))).toBe(true);
  });

  it('queues at once, one batch per arrival, what asks for `now`; counts it under its transport', async () => {
    const before = await counted('ingestMessages', { manufacturer: 'borealis', transport: 'amqp' });
    const queued = await Promise.all([acceptor.accept(arrival(['{"a":1}', '{"b":2}'])), acceptor.accept(arrival(['{"c":3}']))]);
    expect(queued).toEqual([2, 1]);
    expect(await waitingBatches()).toBe(2);
    expect(await counted('ingestMessages', { manufacturer: 'borealis', transport: 'amqp' })).toBe(before + 3);
  });

  it('lets what asks for `batched` fill one batch together', async () => {
    const queued = await Promise.all(['{"a":1}', '{"b":2}', '{"c":3}'].map((b) => acceptor.accept(arrival([b], { batching: 'batched' }))));
    expect(queued).toEqual([1, 1, 1]);
    expect(await waitingBatches()).toBe(1);
  });
});
