import { declaredItems } from '../adapters/declared-items.ts';
import type { Adapter } from '../adapters/manifest.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { rememberLast } from '../domain/remember-last.ts';
import { VIN_PATTERN } from '../domain/vin.ts';
import type { MappingBindings } from '../mapping/compile.ts';
import { STOPPED_CODE } from '../mapping/isolate.ts';
import type { DataPoint } from '../store/contract.ts';
import type { QuarantineCode } from '../store/contract/quarantine.ts';
import type { RawMessage } from '../domain/raw-message.ts';
import { transportKind } from '../transports/kinds.ts';

/** One harmonized item of a message, with its schema errors (empty when valid). */
export interface Candidate {
  vin: string;
  item: string;
  payload: Record<string, unknown>;
  errors: string[];
}

/** What a raw message becomes: its items, or why it cannot become any. */
export interface Analysis {
  mappingVersion: string | null;
  /** The VIN as far as it is known (from the mapping's output, else found in the raw text). */
  vin: string | null;
  candidates: Candidate[];
  failure?: { code: QuarantineCode; reason: string };
  /**
   * Set with a SCHEMA_VIOLATION when the manifest says `invalidItems: quarantine-items` and
   * some candidates are valid: those may be stored, and only the others are quarantined.
   */
  storesValid?: true;
}

/** Deeper than this, a mapping's output is refused (MAPPING_LIMIT). */
const MAX_OUTPUT_DEPTH = 64;

class OutputTooDeepError extends Error {
  constructor() {
    super(`the mapping output is nested more than ${MAX_OUTPUT_DEPTH} levels deep`);
  }
}

export interface AnalyseOptions {
  /**
   * Data stamped later than this after the message's receivedAt is refused (TIME_IN_FUTURE).
   * The pipeline passes INGEST_MAX_FUTURE_S; without it (a dry run, a mapping case, whose
   * receivedAt is made up) there is no such check.
   */
  maxFutureMs?: number;
}

/** More items than this from one message is a runaway mapping, not telemetry. */
const MAX_ITEMS_PER_MESSAGE = 10_000;
/**
 * JSONata's guardrail codes (D1011 stack depth, D1012 timeout, D2014 range size, D2015 sequence
 * size) and an evaluation its thread's deadline or heap limit stopped (src/mapping/isolate.ts).
 */
const LIMIT_CODES = new Set(['D1011', 'D1012', 'D2014', 'D2015', STOPPED_CODE]);

/**
 * Decodes, maps and validates one raw message; never throws for anything the message or its
 * mapping does. Used alike by the worker, the dry run, the case runner and reprocessing.
 */
export async function analyse(adapter: Adapter, catalog: Catalog, msg: RawMessage, opts: AnalyseOptions = {}): Promise<Analysis> {
  const mapping = adapter.mappings.get(msg.messageType);
  const mappingVersion = mapping?.version ?? null;
  // The VIN is looked for in the raw text only when the message fails (it costs a regex scan).
  const fail: Fail = (code, reason, vin = null) => ({
    mappingVersion,
    vin: vin ?? findVin(adapter, msg),
    candidates: [],
    failure: { code, reason },
  });
  if (!mapping) return fail('UNKNOWN_MESSAGE_TYPE', `no mapping for message type "${msg.messageType}"`);
  if (msg.encoding !== 'utf8') return fail('DECODE_FAILED', 'the message is not valid UTF-8');
  let input: unknown;
  try {
    input = JSON.parse(msg.body);
  } catch (err) {
    return fail('DECODE_FAILED', `the message is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof input !== 'object' || input === null) return fail('DECODE_FAILED', 'the message is not a JSON object or array');

  const bindings: MappingBindings = { receivedAt: msg.receivedAt, messageType: msg.messageType, ...(msg.topic ? { topic: msg.topic } : {}) };
  let output: unknown;
  try {
    // Once: a run that hit a limit (D1012 included) would hit it again; its message is quarantined.
    output = await mapping.evaluate(input, bindings);
  } catch (err) {
    const e = err as { code?: string; message?: string };
    const limit = (e.code && LIMIT_CODES.has(e.code)) || err instanceof RangeError;
    return fail(limit ? 'MAPPING_LIMIT' : 'MAPPING_FAILED', `${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`);
  }
  try {
    const topicVin = carrierVin(adapter, msg);
    return validateOutput(adapter, catalog, output, mappingVersion, fail, { receivedMs: Date.parse(msg.receivedAt), maxFutureMs: opts.maxFutureMs ?? Infinity }, topicVin);
  } catch (err) {
    // Whatever the output holds, the message fails alone (a RangeError: a stack overflow).
    if (err instanceof OutputTooDeepError || err instanceof RangeError) return fail('MAPPING_LIMIT', err.message);
    return fail('OUTPUT_INVALID', `the mapping output could not be checked: ${(err as Error).message}`);
  }
}

type Fail = (code: QuarantineCode, reason: string, vin?: string | null) => Analysis;

function validateOutput(
  adapter: Adapter,
  catalog: Catalog,
  output: unknown,
  mappingVersion: string | null,
  fail: Fail,
  clock: { receivedMs: number; maxFutureMs: number },
  topicVin: string | null,
): Analysis {
  if (output === undefined) return fail('OUTPUT_INVALID', 'the mapping produced nothing');
  const plain = toPlainJson(output);
  const groups = Array.isArray(plain) ? plain : [plain];
  const candidates: Candidate[] = [];
  const declared = declaredItems(adapter);
  let vin: string | null = null;
  for (const [index, g] of groups.entries()) {
    const problem = outputShapeProblem(g);
    if (problem) {
      const where = groups.length > 1 ? `element ${index} of the mapping output` : 'the mapping output';
      return fail('OUTPUT_INVALID', `${where} ${problem}; a mapping returns {"vin": string, "items": {...}} or a list of them`);
    }
    const group = g as { vin: string; items: Record<string, unknown> };
    const groupVin = group.vin;
    vin = groupVin;
    // Stored under anything else, the data could never be asked for (delivery answers such a
    // VIN with CAR.VE.901) nor found by an erasure of the vehicle.
    if (!VIN_PATTERN.test(groupVin)) {
      return fail('VIN_INVALID', `${JSON.stringify(groupVin.slice(0, 40))} is not a valid VIN (17 characters: digits and capital letters except I, O and Q)`);
    }
    if (!adapter.manifest.vinPrefixes.some((p) => groupVin.startsWith(p))) {
      return fail('VIN_NOT_CLAIMED', `the VIN does not start with one of ${adapter.manifest.id}'s prefixes (${adapter.manifest.vinPrefixes.join(', ')})`, groupVin);
    }
    // The topic is where the manufacturer's connection said the data comes from: a body naming
    // another vehicle is a mix-up (or a vehicle writing into another's record), stored for
    // neither. The entry is filed under the topic's vehicle, the sender, when that is a VIN.
    if (topicVin !== null && groupVin !== topicVin) {
      const reason = `the message names VIN ${groupVin} but its topic names ${JSON.stringify(topicVin.slice(0, 40))}`;
      return fail('VIN_MISMATCH', reason, VIN_PATTERN.test(topicVin) ? topicVin : groupVin);
    }
    for (const [item, payload] of Object.entries(group.items as Record<string, unknown>)) {
      const errors: string[] = [];
      if (!declared.has(item)) errors.push(`item is not declared in adapters/${adapter.manifest.id}/manifest.json`);
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) errors.push('payload must be an object');
      else {
        const result = catalog.validate(item, payload);
        if (!result.valid) errors.push(...result.errors);
      }
      candidates.push({ vin: groupVin, item, payload: payload as Record<string, unknown>, errors });
    }
    if (candidates.length > MAX_ITEMS_PER_MESSAGE) return fail('MAPPING_LIMIT', `the mapping produced more than ${MAX_ITEMS_PER_MESSAGE} items`, vin);
  }
  const analysed = { mappingVersion, vin };
  if (candidates.length === 0) return fail('OUTPUT_INVALID', 'the mapping produced no item', vin);
  const bad = candidates.filter((c) => c.errors.length > 0);
  const good = bad.length === 0 ? candidates : candidates.filter((c) => c.errors.length === 0);
  // The latest value only moves forward: one point from a clock years ahead would stay the
  // latest for ever, every correct reading after it kept in history only. The message's clock
  // is wrong for all its items, so this fails the whole message even where items could fail alone.
  const early = bad.length === 0 || adapter.manifest.invalidItems === 'quarantine-items' ? good.find((c) => (pointTime(c.payload) ?? 0) > clock.receivedMs + clock.maxFutureMs) : undefined;
  if (bad.length > 0 && !early) {
    const partial = adapter.manifest.invalidItems === 'quarantine-items' && good.length > 0;
    const listed = bad.flatMap((c) => c.errors.map((e) => `${c.item}: ${e}`)).join('; ');
    const text = partial ? `${bad.length} of ${candidates.length} items quarantined (the other ${good.length} were stored): ${listed}` : listed;
    const reason = text.length > 4000 ? `${text.slice(0, 3997)}...` : text;
    return { ...analysed, candidates, failure: { code: 'SCHEMA_VIOLATION', reason }, ...(partial ? { storesValid: true as const } : {}) };
  }
  if (early) {
    const at = new Date(pointTime(early.payload)!).toISOString();
    const reason = `${early.item}: ${at} is more than ${clock.maxFutureMs / 1000} s after the message was received (INGEST_MAX_FUTURE_S)`;
    return { ...analysed, candidates, failure: { code: 'TIME_IN_FUTURE', reason } };
  }
  return { ...analysed, candidates };
}

/**
 * What is wrong with one element of a mapping's output, in the words a data engineer needs
 * (a missing `vin` is the commonest slip: a field renamed in the raw format), or null.
 */
function outputShapeProblem(g: unknown): string | null {
  if (typeof g !== 'object' || g === null || Array.isArray(g)) return `is ${describe(g)}, not an object`;
  const group = g as { vin?: unknown; items?: unknown };
  if (group.vin === undefined || group.vin === null) return `has no "vin"${group.vin === null ? ' (it is null)' : ''} (the expression for it found nothing in the raw message?)`;
  if (typeof group.vin !== 'string') return `has a "vin" that is ${describe(group.vin)}, not a string`;
  if (group.items === undefined || group.items === null) return 'has no "items"';
  if (typeof group.items !== 'object' || Array.isArray(group.items)) return `has "items" that is ${describe(group.items)}, not an object of catalog items`;
  return null;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v} (${JSON.stringify(v)?.slice(0, 40)})`;
}

/** The data points of a successful analysis (or the valid items of one that {@link Analysis.storesValid}), with their provenance. */
export function toDataPoints(adapter: Adapter, analysis: Analysis, msg: RawMessage): DataPoint[] {
  const fallback = Date.parse(msg.receivedAt);
  const candidates = analysis.storesValid ? analysis.candidates.filter((c) => c.errors.length === 0) : analysis.candidates;
  return candidates.map((c) => ({
    vin: c.vin,
    item: c.item,
    timestampMs: pointTime(c.payload) ?? fallback,
    payload: c.payload,
    manufacturer: adapter.manifest.id,
    mappingVersion: analysis.mappingVersion ?? 'unknown',
    receivedAt: msg.receivedAt,
  }));
}

/**
 * The dedup key's time: the payload's own `timestamp` (the vehicle's time, so a re-sent event
 * is recognised as the same), else its `receivedAt` (events without a vehicle time).
 */
function pointTime(payload: Record<string, unknown>): number | undefined {
  for (const key of ['timestamp', 'receivedAt']) {
    const v = payload[key];
    if (typeof v === 'string') {
      const ms = parseTime(v);
      if (Number.isFinite(ms)) return ms;
    }
  }
  return undefined;
}

const parseTime = rememberLast((text: string) => Date.parse(text));

/**
 * The VIN the message's carrier names before any mapping (an MQTT topic's `vinTopicLevel`), or
 * null when its transport names none: the transport says (src/transports/<kind>/kind.ts).
 */
export function carrierVin(adapter: Adapter, msg: RawMessage): string | null {
  const t = adapter.manifest.transport;
  return transportKind(t).vinOf?.(t, msg) ?? null;
}

/** Per adapter, the patterns of its VINs, one per prefix (also used on the ingest path, to pick a queue partition). */
const vinPatterns = new WeakMap<Adapter, RegExp[]>();

/**
 * A VIN of this adapter found in the raw text, so a message failing early can still be erased
 * by VIN, and a message whose topic names no vehicle still goes to its vehicle's partition.
 */
export function findVin(adapter: Adapter, msg: RawMessage): string | null {
  if (msg.encoding !== 'utf8') return null;
  let patterns = vinPatterns.get(adapter);
  if (!patterns) {
    patterns = adapter.manifest.vinPrefixes.map((prefix) => new RegExp(`${prefix}[A-HJ-NPR-Z0-9]{${Math.max(0, 17 - prefix.length)}}`));
    vinPatterns.set(adapter, patterns);
  }
  for (const re of patterns) {
    const m = re.exec(msg.body);
    if (m) return m[0];
  }
  return null;
}

/**
 * What a JSON round trip would make of a mapping's output (plain objects and arrays, without
 * JSONata's sequence markers, undefined fields or functions; non-finite numbers as null), at
 * a fifth of its cost. An ordinary object that already is plain JSON is returned as it is, not
 * copied: a compiled mapping's items mostly are, and their copies were a tenth of a worker's
 * allocations. Arrays are always copied (JSONata marks its sequences with properties of their own).
 */
export function toPlainJson(v: unknown, depth = 0): unknown {
  // As JSON: -0 becomes 0, NaN and Infinity null.
  if (typeof v === 'number') return Number.isFinite(v) ? v + 0 : null;
  if (v === null || typeof v !== 'object') return typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint' ? undefined : v;
  // No catalog payload comes near this; a message that does would overflow the stack here or
  // wherever it is serialized later, and take its whole batch with it.
  if (depth >= MAX_OUTPUT_DEPTH) throw new OutputTooDeepError();
  if (Array.isArray(v)) {
    const a: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = toPlainJson(v[i], depth + 1) ?? null;
    return a;
  }
  if (isPlainJsonObject(v, depth)) return v;
  const o: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const x = toPlainJson((v as Record<string, unknown>)[k], depth + 1);
    if (x === undefined) continue;
    // A "__proto__" key stays a key (as JSON.parse makes it), never the object's prototype.
    // Only it: defining every key cost five times a plain assignment, and left objects that
    // validating and serializing them later also found slower (bench:ingest).
    if (k === '__proto__') Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
    else o[k] = x;
  }
  return o;
}

/**
 * Whether toPlainJson would give back an equal object: an ordinary object (Object.prototype)
 * holding only strings, booleans, null, finite numbers but -0, and such objects, less deep than
 * MAX_OUTPUT_DEPTH. Allocates nothing.
 */
function isPlainJsonObject(o: object, depth: number): boolean {
  if (Object.getPrototypeOf(o) !== Object.prototype) return false;
  for (const k in o) {
    const x = (o as Record<string, unknown>)[k];
    switch (typeof x) {
      case 'string':
      case 'boolean':
        continue;
      case 'number':
        if (x === 0 ? 1 / x > 0 : Number.isFinite(x)) continue;
        return false;
      case 'object':
        if (x === null || (!Array.isArray(x) && depth + 1 < MAX_OUTPUT_DEPTH && isPlainJsonObject(x, depth + 1))) continue;
        return false;
      default:
        return false;
    }
  }
  return true;
}
