import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/http/openapi/document.ts';
import { OPERATIONS } from '../../src/http/openapi/operations.ts';
import { examplesOf, operationsOf, servedDocument, type Operation } from './served-document.ts';

/*
 * The OpenAPI document a consumer downloads from /docs/json: valid OpenAPI
 * 3.1 by a maintained validator, and complete — every operation named, described, with an
 * example and its error responses. docs/openapi.json is the committed copy the TypeScript
 * client is generated from (clients/typescript/); `npm run openapi:write` refreshes it.
 */
const COMMITTED = new URL('../../docs/openapi.json', import.meta.url);

/**
 * `doc` with the keys of every object in the order the committed copy has them, new keys last:
 * the order routes register in is not the committed one, and a rewrite should show only what changed.
 */
function inOrderOf(committed: unknown, doc: unknown): unknown {
  if (Array.isArray(doc)) return doc.map((v, i) => inOrderOf(Array.isArray(committed) ? committed[i] : undefined, v));
  if (!doc || typeof doc !== 'object') return doc;
  const old = committed && typeof committed === 'object' && !Array.isArray(committed) ? (committed as Record<string, unknown>) : {};
  const fresh = doc as Record<string, unknown>;
  const keys = [...Object.keys(old).filter((k) => k in fresh), ...Object.keys(fresh).filter((k) => !(k in old))];
  return Object.fromEntries(keys.map((k) => [k, inOrderOf(old[k], fresh[k])]));
}

describe('the OpenAPI document', () => {
  let doc: OpenApiDocument;
  let ops: Operation[];
  beforeAll(async () => {
    doc = await servedDocument();
    ops = operationsOf(doc);
    if (process.env.OPENAPI_WRITE === '1') writeFileSync(COMMITTED, `${JSON.stringify(inOrderOf(JSON.parse(readFileSync(COMMITTED, 'utf8')), doc), null, 2)}\n`);
  });

  it('is valid OpenAPI 3.1 for @seriousme/openapi-schema-validator', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has only JSON Schema 2020-12 schemas (OpenAPI 3.1’s dialect) that compile', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addKeyword('example');
    addFormats.default(ajv);
    const schemas: unknown[] = [];
    const collect = (node: unknown, key?: string): void => {
      if (!node || typeof node !== 'object') return;
      if (key === 'schema') schemas.push(node);
      // Examples are data (a catalog entry's example carries its draft-04 `schema`), not schemas.
      else if (key !== 'examples' && key !== 'example') for (const [k, v] of Object.entries(node)) collect(v, k);
    };
    collect(doc.paths);
    collect(doc.webhooks);
    expect(schemas.length).toBeGreaterThan(100);
    for (const s of schemas) expect(() => ajv.compile(s as object)).not.toThrow();
    // 3.0's `nullable` means nothing in 3.1: a nullable value is `type: [..., 'null']`.
    expect(JSON.stringify(doc)).not.toContain('"nullable"');
  });

  it('names, summarises and describes every operation, with unique ids', () => {
    const missing = ops.filter(({ op }) => !op.operationId || !op.summary || !op.description).map((o) => o.key);
    expect(missing).toEqual([]);
    const ids = ops.map(({ op }) => op.operationId as string);
    expect(new Set(ids).size).toBe(ids.length);
    // The table names exactly the routes that exist (no stale entry, none forgotten).
    expect(Object.keys(OPERATIONS).sort()).toEqual(ops.filter((o) => !o.key.startsWith('webhook')).map((o) => o.key).sort());
  });

  it('gives every operation an example, and every JSON success response and request body one', () => {
    const without: string[] = [];
    for (const { key, op } of ops) {
      const body = op.requestBody?.content?.['application/json'];
      if (body && examplesOf(body).length === 0) without.push(`${key} request body`);
      for (const [status, response] of Object.entries(op.responses as Record<string, { content?: Record<string, never> }>)) {
        const media = response.content?.['application/json'];
        if (/^2\d\d$/.test(status) && media && examplesOf(media).length === 0) without.push(`${key} ${status}`);
      }
      const anyExample = JSON.stringify(op).includes('"examples"') || (op.parameters ?? []).some((p: { example?: unknown }) => p.example !== undefined);
      if (!anyExample) without.push(key);
    }
    expect(without).toEqual([]);
  });

  it('documents the errors of every operation, each with its reason code', () => {
    const problems: string[] = [];
    for (const { key, op } of ops.filter((o) => !o.key.startsWith('webhook'))) {
      const statuses = Object.keys(op.responses).filter((s) => Number(s) >= 400);
      const security = JSON.stringify(op.security ?? []);
      const needed = [
        ...(security.includes('subscriptionId') ? ['400', '401', '429'] : []),
        ...(security.includes('adminToken') ? ['401', '429'] : []),
        ...(op.requestBody ? ['400', '413', '415'] : []),
        '500',
      ];
      // Liveness answers 200 while the process runs; everything else has errors of its own.
      if (key !== 'GET /health' && statuses.length < 2) problems.push(`${key}: no error but 500`);
      for (const s of needed) if (!statuses.includes(s)) problems.push(`${key}: no ${s}`);
      for (const s of statuses) {
        const reasonCode = op.responses[s].content?.['application/json']?.schema?.properties?.reasonCode;
        const expected = key.includes('/confirmation/') ? `car.${s}` : `CAR.${s}`;
        if (key !== 'GET /ready' && JSON.stringify(reasonCode?.enum) !== JSON.stringify([expected])) problems.push(`${key}: ${s} without reasonCode ${expected}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('documents the security schemes and the webhooks with the Standard Webhooks signature headers', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['adminToken', 'apiKey', 'subscriptionId']);
    expect(Object.keys(doc.webhooks).sort()).toEqual(['consentRevoked', 'vehicleData', 'vehicleDataErased']);
    for (const hook of Object.values(doc.webhooks as Record<string, { post: { parameters: { name: string; required: boolean }[] } }>)) {
      expect(hook.post.parameters.filter((p) => p.required).map((p) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    }
  });

  it('is committed as docs/openapi.json, from which the TypeScript client is generated', () => {
    expect(JSON.parse(readFileSync(COMMITTED, 'utf8'))).toEqual(doc);
  });
});
