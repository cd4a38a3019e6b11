import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { fixture, ROOT } from './harness.ts';
import { join } from 'node:path';

const AUTH = { authorization: 'Bearer test-admin-token' };

describe('mapping dry run', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  it('returns the harmonized items of a raw message and stores nothing', async () => {
    t = await createTestApp();
    const res = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/mappings/borealis/dry-run',
      headers: AUTH,
      payload: { messageType: 'vehicle-status', message: JSON.parse(fixture('borealis', 'borealis.vehicle-status.json')) },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ manufacturer: 'borealis', messageType: 'vehicle-status', valid: true, failure: null });
    expect(body.mappingVersion).toMatch(/^vehicle-status\.jsonata@/);
    // 14: mileage, speed, heading, position, ... and ignitionstatus (catalog version 4).
    expect(body.items).toHaveLength(14);
    expect(body.items[0]).toEqual({
      vin: 'BRLAU1EV0N1000001',
      item: 'mileage',
      payload: { value: 12411, unit: 'km', timestamp: '2026-11-25T10:00:00.000Z' },
      valid: true,
      errors: [],
    });
    expect(await t.services.store.dataPoints.count()).toBe(0);
    expect(await t.services.store.quarantine.count()).toBe(0);
  });

  it('lists every schema error of every item', async () => {
    t = await createTestApp();
    const message = {
      recordType: 'vehicle-status',
      vehicle: { vinNumber: 'BRLAU1EV0N1000001' },
      readings: [{ capturedAt: 1795600800, samples: [{ channel: 'HEADING', value: 400 }, { channel: 'FUEL_LEVEL', value: -3 }, { channel: 'ODOMETER', value: 5, uom: 'km' }] }],
    };
    const res = await t.app.inject({ method: 'POST', url: '/admin/v1/mappings/borealis/dry-run', headers: AUTH, payload: { messageType: 'vehicle-status', message } });
    const body = res.json();
    expect(body.valid).toBe(false);
    expect(body.failure.code).toBe('SCHEMA_VIOLATION');
    const invalid = body.items.filter((i: { valid: boolean }) => !i.valid).map((i: { item: string; errors: string[] }) => [i.item, i.errors]);
    expect(invalid).toEqual([
      ['vehicleheading', ['/value must be <= 360']],
      ['fuellevel', ['/value must be >= 0']],
    ]);
    expect(body.items.find((i: { item: string }) => i.item === 'mileage').valid).toBe(true);
  });

  it('reports undecodable raw text, an unknown message type and an unknown manufacturer', async () => {
    t = await createTestApp();
    const post = (url: string, payload: Record<string, unknown>) => t!.app.inject({ method: 'POST', url, headers: AUTH, payload });
    expect((await post('/admin/v1/mappings/virtual/dry-run', { messageType: 'telemetry', raw: '{"vin": ' })).json()).toMatchObject({ valid: false, failure: { code: 'DECODE_FAILED' }, items: [] });
    expect((await post('/admin/v1/mappings/virtual/dry-run', { messageType: 'status', message: {} })).json()).toMatchObject({ failure: { code: 'UNKNOWN_MESSAGE_TYPE' } });
    expect((await post('/admin/v1/mappings/nobody/dry-run', { messageType: 'x', message: {} })).statusCode).toBe(404);
    expect((await post('/admin/v1/mappings/virtual/dry-run', { messageType: 'x' })).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'POST', url: '/admin/v1/mappings/virtual/dry-run', payload: { messageType: 'x', message: {} } })).statusCode).toBe(401);
  });

  it('is the same from the CLI, on a file, with exit code 1 when the message would be quarantined', async () => {
    const out: string[] = [];
    const io = { stdout: (s: string) => void out.push(s), stderr: () => {}, env: { DATA_DIR: '/nonexistent-unused', LOG_LEVEL: 'silent' } };
    const file = join(ROOT, 'adapters', 'virtual', 'fixtures', 'virtual.event.crash.json');
    expect(await runCli(['mappings', 'dry-run', file, '--manufacturer', 'virtual', '--type', 'event'], io)).toBe(0);
    const result = JSON.parse(out.join('')) as { valid: boolean; items: unknown[] };
    expect(result.valid).toBe(true);
    expect(result.items).toHaveLength(10);
    out.length = 0;
    expect(await runCli(['mappings', 'dry-run', file, '--manufacturer', 'virtual', '--type', 'telemetry'], io)).toBe(1);
    // An event is no telemetry sample: the mandatory groups are missing.
    expect(JSON.parse(out.join(''))).toMatchObject({ valid: false, failure: { code: 'SCHEMA_VIOLATION' } });
    expect(await runCli(['mappings', 'dry-run', file, '--manufacturer', 'virtual'], io)).toBe(2);
  });

  it('runs every mapping case from the CLI (npm run mappings:test)', async () => {
    const out: string[] = [];
    const notes: string[] = [];
    const io = { stdout: (s: string) => void out.push(s), stderr: (s: string) => void notes.push(s), env: { LOG_LEVEL: 'silent' } };
    expect(await runCli(['mappings', 'test'], io)).toBe(0);
    const summary = JSON.parse(out.join('')) as { cases: number; passed: number };
    expect(summary.cases).toBeGreaterThanOrEqual(19);
    expect(summary.passed).toBe(summary.cases);
    expect(notes.join('')).toContain('ok   borealis/cases/vehicle-status.json');
  });
});
