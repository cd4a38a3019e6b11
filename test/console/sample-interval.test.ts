import { afterAll, describe, expect, it } from 'vitest';
import { startServiceSampler } from '../../src/main/sampler.ts';
import { readPipelineSeries } from '../../src/console/series.ts';
import { metrics } from '../../src/metrics/metrics.ts';
import { createTestApp } from '../helpers/app.ts';

const t = await createTestApp({ env: { CONSOLE_SAMPLE_SECONDS: '1' } });

const messagesIn = async () =>
  ((await readPipelineSeries(t.services)).charts.find((c) => c.id === 'messages-in')?.values ?? []).flat().reduce<number>((sum, v) => sum + (v ?? 0), 0);

describe('the console sampler', () => {
  afterAll(async () => t.cleanup());

  it('writes every CONSOLE_SAMPLE_SECONDS on its own, without a flush by hand', async () => {
    const sampler = startServiceSampler(t.services, {});
    try {
      await sampler.flush(); // the baseline, as at start
      metrics.ingestMessages.inc({ manufacturer: 'virtual', transport: 'mqtt' }, 4);
      // The default (5 s) would not have written it yet; one second's timer does.
      const deadline = Date.now() + 3_000;
      while ((await messagesIn()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(await messagesIn()).toBe(4);
    } finally {
      await sampler.close();
    }
  });
});
