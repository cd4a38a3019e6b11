import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/adapters/manifest.ts';
import { rawMessage } from '../../src/domain/raw-message.ts';
import type { CompiledMapping } from '../../src/mapping/compile.ts';
import { analyse } from '../../src/pipeline/harmonize.ts';
import { copyProject, fixture, startHarness, waitFor, type Harness } from './harness.ts';

/*
 * A deployed mapping that hits a limit: its message is quarantined as MAPPING_LIMIT after one
 * run (a timeout used to be run twice), and the worker goes on with the next message. The
 * compiled code stops at the deadline itself: the nested path below once blocked the worker's
 * event loop for 43 s per run.
 */
describe('pipeline: a mapping that hits a limit', () => {
  let h: Harness | undefined;
  let project: ReturnType<typeof copyProject> | undefined;
  afterEach(async () => {
    await h?.stop();
    project?.cleanup();
    h = project = undefined;
  });

  it('is run once: a timeout is not retried', async () => {
    let runs = 0;
    const mapping: CompiledMapping = {
      file: '/m/event.jsonata',
      version: 'event.jsonata@0',
      source: '',
      engine: 'compiled',
      evaluate: async () => {
        runs++;
        throw Object.assign(new Error('Evaluation timeout after 100 milliseconds. Check for infinite loop'), { code: 'D1012' });
      },
    };
    const adapter = { manifest: { id: 'virtual', vinPrefixes: ['V1RTUALV1N'], items: [], transport: { kind: 'http' } }, dir: '/a', mappings: new Map([['event', mapping]]) } as unknown as Adapter;
    const analysis = await analyse(adapter, { validate: () => ({ valid: true, errors: [] }) } as never, rawMessage({ manufacturer: 'virtual', messageType: 'event', receivedAt: '2026-11-25T12:00:00.000Z' }, '{}'));
    expect(analysis.failure).toMatchObject({ code: 'MAPPING_LIMIT', reason: expect.stringContaining('D1012') });
    expect(runs).toBe(1);
  });

  it('compiled, a nested path over a long list stops at MAPPING_TIMEOUT_MS: quarantined, and the next message stored', async () => {
    project = copyProject();
    const file = join(project.paths.mappings, 'virtual', 'event.jsonata');
    // The shipped event mapping, after a count that is quick without `pad` and minutes of work with 400 items.
    writeFileSync(file, `( $n := $count(pad.($count($$.pad.($count($$.pad.($count($$.pad))))))); ${readFileSync(file, 'utf8')} )`);
    h = await startHarness({ paths: project.paths, env: { MAPPING_TIMEOUT_MS: '300' } });
    expect(h.services.adapters.get('virtual')!.mappings.get('event')!.engine).toBe('compiled');
    const client = await h.connect();
    const crash = JSON.parse(fixture('virtual', 'virtual.event.crash.json')) as Record<string, unknown>;
    const started = Date.now();
    await client.publishAsync('virtual/v1/V1RTUALV1N0000S08/event', JSON.stringify({ ...crash, vin: 'V1RTUALV1N0000S08', pad: Array.from({ length: 400 }, (_, i) => i) }), { qos: 1 });
    await client.publishAsync('virtual/v1/V1RTUALV1N0000S09/event', fixture('virtual', 'virtual.event.teleservice.json').replaceAll(/V1RTUALV1N0000S\d\d/g, 'V1RTUALV1N0000S09'), { qos: 1 });
    await waitFor(async () => (await h!.services.store.quarantine.count()) === 1, 20_000, 'the padded crash quarantined');
    await waitFor(async () => (await h!.services.store.dataPoints.count()) > 0, 20_000, 'the teleservice call stored');
    // Minutes of work stopped at the limit (the bound is generous: a shared, loaded machine).
    expect(Date.now() - started).toBeLessThan(15_000);
    const [entry] = (await h.services.store.quarantine.list({}, 10)).items;
    expect(entry).toMatchObject({ vin: 'V1RTUALV1N0000S08', code: 'MAPPING_LIMIT', failures: 1, reason: expect.stringContaining('D1012: Evaluation timeout after 300 milliseconds') });
  }, 60_000);

  it('interpreted, $sort of 90,000 numbers is stopped in the interpreter\'s thread: quarantined, and the next message stored', async () => {
    project = copyProject();
    const file = join(project.paths.mappings, 'virtual', 'event.jsonata');
    // $sort runs interpreted; its merge once used memory quadratic in the list's length and killed the process.
    writeFileSync(file, `( $n := $count($sort(pad)); ${readFileSync(file, 'utf8')} )`);
    h = await startHarness({ paths: project.paths, env: { MAPPING_TIMEOUT_MS: '300', MAPPING_SANDBOX_MEMORY_MB: '128', MQTT_MAX_PAYLOAD_BYTES: '1048576' } });
    expect(h.services.adapters.get('virtual')!.mappings.get('event')!.engine).toBe('interpreted');
    const client = await h.connect();
    const crash = JSON.parse(fixture('virtual', 'virtual.event.crash.json')) as Record<string, unknown>;
    await client.publishAsync('virtual/v1/V1RTUALV1N0000S08/event', JSON.stringify({ ...crash, vin: 'V1RTUALV1N0000S08', pad: Array.from({ length: 90_000 }, (_, i) => (i * 7919) % 90_000) }), { qos: 1 });
    await client.publishAsync('virtual/v1/V1RTUALV1N0000S09/event', fixture('virtual', 'virtual.event.teleservice.json').replaceAll(/V1RTUALV1N0000S\d\d/g, 'V1RTUALV1N0000S09'), { qos: 1 });
    await waitFor(async () => (await h!.services.store.quarantine.count()) === 1, 30_000, 'the padded crash quarantined');
    await waitFor(async () => (await h!.services.store.dataPoints.count()) > 0, 30_000, 'the teleservice call stored');
    const [entry] = (await h.services.store.quarantine.list({}, 10)).items;
    expect(entry).toMatchObject({ vin: 'V1RTUALV1N0000S08', code: 'MAPPING_LIMIT', failures: 1, reason: expect.stringMatching(/^MAPPING_STOPPED: the run (took longer than 800 ms|used more than 128 MB) and was stopped/) });
  }, 90_000);
});
