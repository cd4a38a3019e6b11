import fc from 'fast-check';

/** The subset of JSON Schema the route schemas use. */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
}

/** Realistic values for a field or parameter, by its name; undefined when the name says nothing. */
export type Hints = (name: string) => fc.Arbitrary<unknown> | undefined;

/** Strings that break naive code: empty, huge, control and non-BMP characters, injections, encodings. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', '..', '../../etc/passwd', '%00', '%', '%zz', "'; DROP TABLE consents;--", '{"$gt":""}', '__proto__', 'constructor', 'null', 'undefined', 'NaN', '-1', '1e309', '0x10', '💥'.repeat(50), 'a'.repeat(5000), '\uD800', '<script>alert(1)</script>'),
);

function stringFor(schema: Schema): fc.Arbitrary<string> {
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      // A pattern fast-check cannot generate from: fall through to plain strings.
    }
  }
  switch (schema.format) {
    case 'date-time':
      return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'uuid':
      return fc.uuid();
    case 'uri':
      return fc.webUrl();
  }
  const minLength = schema.minLength ?? 0;
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 30, 30)) });
}

/**
 * Values that satisfy the schema (as far as its keywords go), with field names' hints mixed in
 * so that requests get past the first checks and into the handlers.
 */
export function validFor(schema: Schema, hints: Hints, name = '', depth = 0): fc.Arbitrary<unknown> {
  // An enum or a non-string type says more than the field's name does.
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const nameSpeaks = !schema.enum && (type === undefined || type === 'string' || type === 'array');
  const hinted = name && nameSpeaks ? hints(name) : undefined;
  const plain = plainFor(schema, hints, depth);
  return hinted ? fc.oneof({ weight: 6, arbitrary: hinted }, { weight: 1, arbitrary: plain }) : plain;
}

function plainFor(schema: Schema, hints: Hints, depth: number): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const item = schema.items ? validFor(schema.items, hints, '', depth + 1) : fc.jsonValue({ maxDepth: 1 });
      return fc.array(item, { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 4, 4)) });
    }
    case 'object': {
      const props = schema.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, validFor(s, hints, k, depth + 1)]));
      // Mostly every field, sometimes only the required ones: handlers see full requests often.
      return fc.oneof(
        { weight: 3, arbitrary: fc.record(model) },
        { weight: 1, arbitrary: fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in props) }) },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: depth > 2 ? 0 : 2 });
  }
}

/** Valid-ish and invalid values: the schema's own, any JSON, and the schema's own with one field broken. */
export function anyFor(schema: Schema, hints: Hints): fc.Arbitrary<unknown> {
  const valid = validFor(schema, hints);
  const broken = fc
    .tuple(valid, fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }))
    .map(([v, key, junk]) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return junk;
      const keys = Object.keys(v);
      const target = keys.length > 0 && key.length % 2 === 0 ? keys[key.length % keys.length]! : key;
      return { ...v, [target]: junk };
    });
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 2, arbitrary: broken }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) });
}
