import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogEntry } from '../../src/catalog/catalog.ts';
import { rawMessage, type RawMessage } from '../../src/domain/raw-message.ts';
import { ROOT } from './harness.ts';

/**
 * Raw manufacturer messages with random extra fields (only catalog items may be kept), for
 * test/pipeline/data-minimisation.test.ts: the real fixtures of both adapters, a fresh VIN each,
 * and extra fields injected at random objects of the message (top level, signal groups,
 * records, objects inside arrays of readings or samples).
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

export interface RawFixture {
  manufacturer: 'virtual' | 'borealis';
  messageType: string;
  name: string;
  body: JsonObject;
}

/** Every fixture of adapters/virtual and adapters/borealis, as parsed JSON. */
export function rawFixtures(): RawFixture[] {
  const out: RawFixture[] = [];
  for (const manufacturer of ['virtual', 'borealis'] as const) {
    const dir = join(ROOT, 'adapters', manufacturer, 'fixtures');
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const body = JSON.parse(readFileSync(join(dir, name), 'utf8')) as JsonObject;
      // Virtual names its message type in the topic (file name), Borealis in the record.
      const messageType = manufacturer === 'virtual' ? name.split('.')[1]! : String(body.recordType);
      // A counterexample names the fixture instead of printing its whole body.
      out.push({ manufacturer, messageType, name, body, [fc.toStringMethod]: () => name } as RawFixture);
    }
  }
  return out;
}

const VIN_PREFIX = { virtual: 'V1RTUALV1N', borealis: 'BRL' } as const;
const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

/** A VIN of the manufacturer, distinct for each n (so no run sees another run's points). */
export function vinFor(manufacturer: RawFixture['manufacturer'], n: number): string {
  const prefix = VIN_PREFIX[manufacturer];
  let suffix = '';
  for (let i = 0, x = n; i < 17 - prefix.length; i++, x = Math.floor(x / VIN_CHARS.length)) suffix = VIN_CHARS[x % VIN_CHARS.length] + suffix;
  return prefix + suffix;
}

/** The fixture's body for another VIN. */
export function withVin(f: RawFixture, vin: string): JsonObject {
  const body = structuredClone(f.body);
  if (f.manufacturer === 'virtual') {
    const old = body.vin as string;
    body.vin = vin;
    if (typeof body.messageId === 'string') body.messageId = body.messageId.replace(old, vin);
  } else {
    (body.vehicle as JsonObject).vinNumber = vin;
  }
  return body;
}

export function toRawMessage(f: RawFixture, body: JsonObject, receivedAt: string): RawMessage {
  const vin = f.manufacturer === 'virtual' ? String(body.vin) : '';
  return rawMessage(
    { manufacturer: f.manufacturer, messageType: f.messageType, receivedAt, ...(f.manufacturer === 'virtual' ? { topic: `virtual/v1/${vin}/${f.messageType}` } : {}) },
    JSON.stringify(body),
  );
}

/**
 * The field names a manufacturer's mappings read: bare path names of the JSONata text (not
 * `$variables`, not string literals, not keywords). An "extra" field with such a name is not
 * extra, it is the raw format's own field (a `fuel` group added to an electric car's telemetry
 * rightly produces `fuellevel`), so the injected names avoid them. Catalog-looking names that
 * mappings only write (`latitude`, `unit`, `timestamp`, ...) stay in play.
 */
export function namesReadBy(manufacturer: string): Set<string> {
  const dir = join(ROOT, 'mappings', manufacturer);
  const names = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonata'))) {
    const code = readFileSync(join(dir, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, ' ')
      .replace(/"(?:[^"\\]|\\.)*"/g, '""');
    for (const m of code.matchAll(/(?<![$\w])[A-Za-z_]\w*/g)) names.add(m[0]);
  }
  for (const keyword of ['and', 'or', 'in', 'function', 'true', 'false', 'null']) names.delete(keyword);
  return names;
}

/** Names an attacker, a buggy firmware or a careless manufacturer might add. */
const TEMPTING_NAMES = [
  'driverName', 'phone', 'gpsTrace', 'email', 'homeAddress', 'firstName', 'lastName', 'birthDate', 'licensePlate',
  'latitude', 'longitude', 'geoSystem', 'position', 'lat', 'lon', 'gps', 'location', 'chargingLocation',
  'value', 'unit', 'timestamp', 'receivedAt', 'x', 'y', 'z', 'items', 'vin', 'personalData', '__proto__', 'constructor',
];

export interface Injection {
  /** Index into the message's objects (taken modulo their count). */
  at: number;
  name: string;
  shape: 'marker' | 'array' | 'object' | 'gps' | 'json';
  extra: unknown;
}

export const injectionsArb: fc.Arbitrary<Injection[]> = fc.array(
  fc.record({
    at: fc.nat(),
    name: fc.oneof(fc.constantFrom(...TEMPTING_NAMES), fc.string({ minLength: 1, maxLength: 12 })),
    shape: fc.constantFrom('marker', 'array', 'object', 'gps', 'json'),
    extra: fc.jsonValue({ maxDepth: 2 }),
  }),
  { minLength: 1, maxLength: 8 },
);

export interface Injected {
  body: JsonObject;
  /** The names actually added (a name the object has already, or the mapping reads, is skipped). */
  names: string[];
  /** A unique string inside every injected value: it must never reach a store or a consumer. */
  markers: string[];
}

/** Every plain object of a JSON value, the root first (those inside arrays included). */
function objectsOf(v: Json, out: JsonObject[] = []): JsonObject[] {
  if (Array.isArray(v)) for (const x of v) objectsOf(x, out);
  else if (v !== null && typeof v === 'object') {
    out.push(v);
    for (const x of Object.values(v)) objectsOf(x, out);
  }
  return out;
}

/** The body with the injections applied (the input is not changed). */
export function inject(body: JsonObject, injections: Injection[], readNames: Set<string>): Injected {
  const copy = structuredClone(body);
  const targets = objectsOf(copy);
  const names: string[] = [];
  const markers: string[] = [];
  for (const inj of injections) {
    const target = targets[inj.at % targets.length]!;
    if (readNames.has(inj.name) || Object.prototype.hasOwnProperty.call(target, inj.name)) continue;
    const marker = `PII-${randomUUID()}`;
    const extra = inj.extra as Json;
    const value: Json =
      inj.shape === 'marker' ? marker
      : inj.shape === 'array' ? [marker, extra]
      : inj.shape === 'object' ? { note: marker, data: extra }
      : inj.shape === 'gps' ? { lat: 52.52, lon: 13.405, label: marker }
      : { [marker]: extra };
    // defineProperty: "__proto__" becomes an own key, as JSON.parse of a raw message makes it.
    Object.defineProperty(target, inj.name, { value, enumerable: true, writable: true, configurable: true });
    names.push(inj.name);
    markers.push(marker);
  }
  return { body: copy, names, markers };
}

/**
 * The keys of a payload its catalog schema does not declare, as JSON pointers: at the top level
 * (where additionalProperties is false) and inside every nested object the schema describes.
 */
export function undeclaredKeys(schema: Record<string, unknown>, value: unknown, at = ''): string[] {
  if (Array.isArray(value)) {
    const items = schema.items as Record<string, unknown> | undefined;
    return items && !Array.isArray(items) ? value.flatMap((v, i) => undeclaredKeys(items, v, `${at}/${i}`)) : [];
  }
  if (value === null || typeof value !== 'object') return [];
  const props = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!props) return [];
  return Object.entries(value).flatMap(([k, v]) =>
    Object.prototype.hasOwnProperty.call(props, k) ? undeclaredKeys(props[k]!, v, `${at}/${k}`) : [`${at}/${k}`],
  );
}

/** Every object key anywhere in a JSON value. */
export function keysDeep(v: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(v)) for (const x of v) keysDeep(x, out);
  else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.add(k);
      keysDeep(x, out);
    }
  }
  return out;
}

export function schemaOf(entry: CatalogEntry | undefined): Record<string, unknown> {
  if (!entry) throw new Error('not a catalog item');
  return entry.schema;
}
