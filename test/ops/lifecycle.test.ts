import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { withoutCredentials } from '../../src/transports/mqtt/broker-url.ts';
import { stopRoles } from '../../src/main/roles.ts';
import { installShutdown } from '../../src/main/shutdown.ts';
import type { Running } from '../../src/running.ts';

const logger = createLogger({ level: 'silent', pretty: false });
const part = (name: string, log: string[], close: () => Promise<void> = async () => {}): Running => ({
  name,
  async close() {
    log.push(`closing ${name}`);
    await close();
    log.push(`closed ${name}`);
  },
});

describe('stopping the parts of a process', () => {
  it('stops in reverse order of start, every part even when one fails, then reports the failure', async () => {
    const log: string[] = [];
    const failures: string[] = [];
    const parts = [part('broker', log), part('worker', log, async () => Promise.reject(new Error('boom'))), part('api', log)];
    await expect(stopRoles(parts, { onError: (name) => failures.push(name) })).rejects.toThrow('boom');
    expect(log).toEqual(['closing api', 'closed api', 'closing worker', 'closing broker', 'closed broker']);
    expect(failures).toEqual(['worker']);
  });

  it('with capMs, gives up on a part that does not stop (a worker that never reached Redis)', async () => {
    const log: string[] = [];
    const started = Date.now();
    await stopRoles([part('broker', log), part('stuck', log, () => new Promise(() => {}))], { capMs: 50 });
    expect(log).toEqual(['closing stuck', 'closing broker', 'closed broker']);
    // Long before "never": a loaded machine may stall the loop for a moment.
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('the shutdown sequence', () => {
  it('runs stop once however often it is triggered, then exits 0', async () => {
    const exits: number[] = [];
    let stops = 0;
    const s = installShutdown({ logger, timeoutMs: 1000, signals: [], exit: (c) => exits.push(c), stop: async () => void stops++ });
    expect(s.stopping).toBe(false);
    await Promise.all([s.trigger('SIGTERM'), s.trigger('SIGINT')]);
    expect(s.stopping).toBe(true);
    expect([stops, exits]).toEqual([1, [0]]);
  });

  it('exits 1 when stopping fails', async () => {
    const exits: number[] = [];
    const s = installShutdown({ logger, timeoutMs: 1000, signals: [], exit: (c) => exits.push(c), stop: () => Promise.reject(new Error('x')) });
    await s.trigger('SIGTERM');
    expect(exits).toEqual([1]);
  });

  it('exits 1 when stopping takes longer than the timeout', async () => {
    const exits: number[] = [];
    const s = installShutdown({ logger, timeoutMs: 50, signals: [], exit: (c) => exits.push(c), stop: () => new Promise(() => {}) });
    void s.trigger('SIGTERM');
    await new Promise((r) => setTimeout(r, 150));
    expect(exits).toEqual([1]);
  });
});

describe('withoutCredentials', () => {
  it('drops user and password from a broker URL and keeps the rest', () => {
    expect(withoutCredentials('mqtt://ingest:p%40ss@mqtt:1883')).toBe('mqtt://mqtt:1883');
    expect(withoutCredentials('mqtts://broker.example.com:8883')).toBe('mqtts://broker.example.com:8883');
    expect(withoutCredentials('mqtt://127.0.0.1:11883')).toBe('mqtt://127.0.0.1:11883');
  });
});
