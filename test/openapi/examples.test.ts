import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, type ExamplesFile, type OpenApiDocument } from '../../src/http/openapi/document.ts';
import { examplesOf, operationsOf, servedDocument } from './served-document.ts';
import { recordScenario } from './scenario.ts';

/*
 * The document's examples are real answers of the service with the virtual fleet
 * (never hand-written, so never wrong): test/openapi/scenario.ts makes the calls again here, and every committed example
 * must still validate against its operation's schema and have the shape of today's answer (the
 * values of ids and times aside). `npm run openapi:examples` records them anew
 * (OPENAPI_WRITE=1 writes src/http/openapi/examples.json).
 */
const FILE = new URL('../../src/http/openapi/examples.json', import.meta.url);

/** Keys and value types, recursively; an array is the set of its elements' shapes. */
export function shapeOf(v: unknown): unknown {
  if (Array.isArray(v)) return ['array', ...new Set(v.map((x) => JSON.stringify(shapeOf(x))))].sort();
  if (v === null) return 'null';
  if (typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, shapeOf((v as Record<string, unknown>)[k])]));
  return typeof v;
}

describe('the OpenAPI examples', () => {
  let fresh: ExamplesFile;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    fresh = await recordScenario();
    if (process.env.OPENAPI_WRITE === '1') writeFileSync(FILE, `${JSON.stringify(fresh, null, 2)}\n`);
    doc = await servedDocument();
  }, 120_000);

  it('exist for every operation and every webhook, and for nothing else', () => {
    const ops = operationsOf(doc);
    expect(Object.keys(EXAMPLES.operations).sort()).toEqual(ops.filter((o) => !o.key.startsWith('webhook')).map((o) => o.op.operationId).sort());
    expect(Object.keys(EXAMPLES.webhooks).sort()).toEqual(Object.keys(doc.webhooks).sort());
  });

  it('validate against the schemas of their operation', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addKeyword('example');
    addFormats.default(ajv);
    const invalid: string[] = [];
    let checked = 0;
    const check = (where: string, schema: object | undefined, values: unknown[]) => {
      if (!schema) return;
      const validate = ajv.compile(schema);
      for (const v of values) {
        checked++;
        if (!validate(v)) invalid.push(`${where}: ${ajv.errorsText(validate.errors)}`);
      }
    };
    for (const { key, op } of operationsOf(doc)) {
      const body = op.requestBody?.content?.['application/json'];
      check(`${key} request`, body?.schema, examplesOf(body));
      for (const [status, response] of Object.entries(op.responses as Record<string, { content?: Record<string, { schema: object; examples?: Record<string, { value: unknown }> }> }>)) {
        const media = response.content?.['application/json'];
        check(`${key} ${status}`, media?.schema, examplesOf(media));
      }
    }
    expect(invalid).toEqual([]);
    expect(checked).toBeGreaterThan(80);
  });

  it('have the shapes of today’s answers (ids, times and values aside)', () => {
    const shapes = (f: ExamplesFile) => ({
      operations: Object.fromEntries(
        Object.entries(f.operations).map(([id, o]) => [id, { request: shapeOf(o.request), responses: shapeOf(o.responses) }]),
      ),
      webhooks: shapeOf(Object.fromEntries(Object.entries(f.webhooks).map(([k, w]) => [k, w.body]))),
    });
    expect(shapes(EXAMPLES)).toEqual(shapes(fresh));
  });
});
