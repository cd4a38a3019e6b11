import fc from 'fast-check';
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileMappingSource, MappingCompileError } from '../../src/mapping/compile.ts';
import { HELPERS, isoTime } from '../../src/mapping/helpers.ts';

const run = (expr: string, input: unknown = {}) =>
  compileMappingSource('test.jsonata', expr).evaluate(input, { receivedAt: '2026-11-25T12:00:00.000Z', messageType: 't' });

describe('mapping helpers', () => {
  it('normalises epoch seconds, epoch milliseconds and date strings to ISO 8601 UTC', () => {
    expect(isoTime(1795600800)).toBe('2026-11-25T10:00:00.000Z');
    expect(isoTime(1795600800123)).toBe('2026-11-25T10:00:00.123Z');
    expect(isoTime('2026-11-25T11:00:00+01:00')).toBe('2026-11-25T10:00:00.000Z');
    for (const bad of ['', 'yesterday', Number.NaN, Number.POSITIVE_INFINITY, null, undefined, {}, 1e20]) expect(isoTime(bad)).toBeUndefined();
  });

  it('refuses a date string without Z or an offset instead of reading it in the server\'s time zone', () => {
    // Date.parse reads these in the process's local zone (TZ=America/New_York made 10:00 into
    // 15:00Z), so the same message would be stored at another instant on another server.
    for (const local of ['2026-11-25T10:00:00', '2026-11-25T10:00:00.123', '2026-11-25 10:00:00', '2026-11-25T10:00', '2026-11-25', 'Wed Nov 25 2026 10:00:00', '11/25/2026 10:00']) {
      expect(isoTime(local), local).toBeUndefined();
    }
    // V8's lenient fallback reads this one in local time despite the offset; only ISO 8601 passes.
    expect(isoTime('Nov 25 2026-05:00')).toBeUndefined();
    // Nor is an impossible day moved to another one (V8 makes 30 February into 2 March).
    expect(isoTime('2026-02-30T10:00:00Z')).toBeUndefined();
    expect(isoTime('2028-02-29T10:00:00Z')).toBe('2028-02-29T10:00:00.000Z');
    expect(isoTime('2026-11-25T10:00:00Z')).toBe('2026-11-25T10:00:00.000Z');
    expect(isoTime('2026-11-25T10:00:00.5z')).toBe('2026-11-25T10:00:00.500Z');
    expect(isoTime('2026-11-25T05:00:00-05:00')).toBe('2026-11-25T10:00:00.000Z');
    expect(isoTime('2026-11-25T15:30:00+05:30')).toBe('2026-11-25T10:00:00.000Z');
  });

  it('answers for each time alone, whatever time came just before (the last answer is remembered)', () => {
    const times = fc.oneof(
      fc.constantFrom('2026-11-25T10:00:00Z', '2026-02-30T10:00:00Z', '2026-11-25T11:00:00+01:00', '2026-11-25T10:00:00', 'yesterday'),
      fc.integer({ min: -1e13, max: 1e13 }),
      fc.double(),
    );
    fc.assert(
      fc.property(fc.array(times, { maxLength: 8 }), (sequence) => {
        const inOrder = sequence.map((t) => isoTime(t));
        const reversed = [...sequence].reverse().map((t) => isoTime(t)).reverse();
        expect(inOrder).toEqual(reversed);
        // Each one as it comes after an unrelated time.
        expect(sequence.map((t) => (isoTime('2000-01-01T00:00:00Z'), isoTime(t)))).toEqual(inOrder);
      }),
    );
  });

  it('converts units inside a mapping, and gives undefined for an unknown unit', async () => {
    expect(await run('$distance(100, "mi", "km")')).toBeCloseTo(160.9344, 6);
    expect(await run('$distance(1, "km", "mi")')).toBeCloseTo(0.621371, 6);
    expect(await run('$speed(60, "mph", "km/h")')).toBeCloseTo(96.56064, 6);
    expect(await run('$speed(10, "m/s", "km/h")')).toBeCloseTo(36, 9);
    expect(await run('$temperature(212, "F", "C")')).toBeCloseTo(100, 9);
    expect(await run('$temperature(-40, "C", "F")')).toBeCloseTo(-40, 9);
    expect(await run('$temperature(0, "K", "C")')).toBeCloseTo(-273.15, 9);
    expect(await run('$roundTo(12.345, 1)')).toBe(12.3);
    expect(await run('$distance(1, "furlong", "km")')).toBeUndefined();
    expect(await run('$isoTime(capturedAt)', { capturedAt: 1795600800 })).toBe('2026-11-25T10:00:00.000Z');
  });

  it('converts VSS unit names and percentages', async () => {
    expect(await run('$temperature(212, "fahrenheit", "celsius")')).toBeCloseTo(100, 9);
    expect(await run('$temperature(0, "kelvin", "C")')).toBeCloseTo(-273.15, 9);
    expect(await run('$percentage(71.5, "percent")')).toBe(71.5);
    expect(await run('$percentage(0.57, "ratio")')).toBe(57);
    expect(await run('$percentage(40, "pct")')).toBe(40);
    expect(await run('$percentage(40, "per mille")')).toBeUndefined();
  });

  it('groups a flat signal list by instant, oldest first, whatever spelling the time has', async () => {
    const signals = [
      { path: 'Vehicle.Speed', value: 50, unit: 'km/h', ts: '2026-11-25T10:01:00Z' },
      { path: 'Vehicle.Speed', value: 40, unit: 'km/h', ts: 1795600800 },
      { path: 'Vehicle.TraveledDistance', value: 9, unit: 'km', ts: '2026-11-25T11:00:00+01:00' },
      { path: 'Vehicle.Speed', value: 41, unit: 'km/h', ts: '2026-11-25T10:00:00.000Z' },
      { value: 1, ts: 1795600800 },
      { path: 'Vehicle.Speed', value: 7, ts: '2026-11-25T10:00:00' },
    ];
    const groups = (await run('$snapshots(signals)', { signals })) as { timestamp?: string; signals: Record<string, { value: number }> }[];
    expect(groups.map((g) => [g.timestamp, Object.fromEntries(Object.entries(g.signals).map(([p, s]) => [p, s.value]))])).toEqual([
      // One instant spelled three ways is one snapshot; the first of a path at one instant wins.
      ['2026-11-25T10:00:00.000Z', { 'Vehicle.Speed': 40, 'Vehicle.TraveledDistance': 9 }],
      ['2026-11-25T10:01:00.000Z', { 'Vehicle.Speed': 50 }],
      // A time without a zone: a snapshot without timestamp, so its items fail validation.
      [undefined, { 'Vehicle.Speed': 7 }],
    ]);
    expect(await run('$lookup($snapshots(signals)[0].signals, "Vehicle.Speed").value', { signals })).toBe(40);
    expect(await run('$snapshots(nothing)', {})).toBeUndefined();
    // One signal alone (JSONata's singleton) is a list of one.
    expect(await run('$count($snapshots(signals))', { signals: signals[0] })).toBe(1);
  });

  it('round-trips any length and temperature through a conversion and back', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constantFrom('km', 'm', 'mi', 'ft'), fc.constantFrom('C', 'F', 'K'), async (v, unit, t) => {
        const input = { v, unit, t };
        expect(await run('$distance($distance(v, unit, "km"), "km", unit)', input)).toBeCloseTo(v, 3);
        expect(await run('$temperature($temperature(v, t, "C"), "C", t)', input)).toBeCloseTo(v, 3);
      }),
      { numRuns: 50 },
    );
  });

  it('leaves every JSONata built-in function as JSONata defines it', async () => {
    // A helper named like a built-in replaces it for every mapping: `$length(vin) = 17` threw T0410.
    for (const name of Object.keys(HELPERS)) expect(await jsonata(`$${name}`).evaluate({}), `$${name} is a JSONata built-in`).toBeUndefined();
    expect(await run('$length(vin) = 17', { vin: 'BRLAU1EV0N1000001' })).toBe(true);
    expect(await run('$length("")')).toBe(0);
  });

  it('binds $receivedAt and names the file and position of a mapping that does not compile', async () => {
    expect(await run('$receivedAt')).toBe('2026-11-25T12:00:00.000Z');
    expect(() => compileMappingSource('broken.jsonata', '{ "a": ')).toThrow(MappingCompileError);
    expect(() => compileMappingSource('broken.jsonata', '{ "a": ')).toThrow(/broken\.jsonata does not compile: .*at character/);
  });

  it('versions a mapping by its content', () => {
    const a = compileMappingSource('/x/telemetry.jsonata', '1');
    expect(a.version).toMatch(/^telemetry\.jsonata@[0-9a-f]{12}$/);
    expect(compileMappingSource('/x/telemetry.jsonata', '1').version).toBe(a.version);
    expect(compileMappingSource('/x/telemetry.jsonata', '2').version).not.toBe(a.version);
  });
});

describe('mapping output as plain JSON', () => {
  it('equals a JSON round trip of any value', async () => {
    const { toPlainJson } = await import('../../src/pipeline/harmonize.ts');
    fc.assert(
      fc.property(fc.anything({ withNullPrototype: true }), (v) => {
        const viaJson = JSON.stringify(v) === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as unknown);
        expect(toPlainJson(v)).toEqual(viaJson);
      }),
      { numRuns: 500 },
    );
    expect(Object.is(toPlainJson(-0), 0)).toBe(true);
    const polluted = toPlainJson(JSON.parse('{"__proto__": {"x": 1}}')) as Record<string, unknown>;
    expect(Object.keys(polluted)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(polluted)).toBe(Object.prototype);
  });

  it('gives back an object that already is plain JSON as it is, and copies one that is not', async () => {
    const { toPlainJson } = await import('../../src/pipeline/harmonize.ts');
    const plain = JSON.parse('{"value": 12.5, "unit": "km", "ok": true, "none": null, "at": {"lat": 49, "lon": 8}}') as unknown;
    expect(toPlainJson(plain)).toBe(plain);
    for (const v of [{ a: -0 }, { a: undefined, b: 1 }, { a: [1] }, { a: { b: Number.NaN } }, Object.assign(Object.create(null), { a: 1 }) as object]) {
      const copy = toPlainJson(v);
      expect(copy).not.toBe(v);
      expect(copy).toEqual(JSON.parse(JSON.stringify(v)));
    }
  });
});
