import type { SwaggerOptions } from '@fastify/swagger';
import { errorBodyFor } from '../error-body.ts';
import { errorBodySchema, errorResponses } from '../schemas.ts';
import examplesFile from './examples.json' with { type: 'json' };
import { OPERATIONS } from './operations.ts';
import { WEBHOOKS } from './webhooks.ts';

/**
 * The OpenAPI 3.1 document served at /docs/json, what a consumer builds a client from. @fastify/swagger builds the
 * paths from the route schemas; `finishDocument` then adds what a route schema does not say:
 * the operation ids (operations.ts), the reason code of every error response, the 500 every
 * route can answer, the `webhooks` section and the examples. The examples are real answers of
 * the service with the virtual fleet, recorded by `npm run openapi:examples` into examples.json
 * and kept true by test/openapi/examples.test.ts.
 */
export interface RecordedCall {
  path: string;
  query?: Record<string, string>;
  body?: unknown;
}
export interface ExamplesFile {
  operations: Record<string, { request: RecordedCall; responses: Record<string, Record<string, unknown>> }>;
  webhooks: Record<string, { headers: Record<string, string>; body: unknown }>;
}
export const EXAMPLES = examplesFile as ExamplesFile;

export const swaggerOptions: SwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Connected vehicle data service',
      version: '1.0.0',
      description:
        'Harmonized in-vehicle data from many manufacturers, delivered with user consent. Errors have the body `{reasonCode, reasonText, url, method}`; ' +
        'a 429 and a 503 carry `Retry-After` (seconds). Pushes to your webhook are described under `webhooks`, signed the Standard Webhooks way.',
    },
    // Redocly's recommended rules want servers declared. '/' is the origin the document is served
    // from (Swagger UI at /docs then tries calls against the deployment itself); the second entry
    // names the local try-out for whoever reads the committed copy.
    servers: [
      { url: '/', description: 'The service that serves this document (`/docs/json` of its PUBLIC_URL).' },
      { url: 'http://localhost:8080', description: 'The local try-out (`npm start`).' },
    ],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A consumer’s API key (created by the operator, shown once).' },
        subscriptionId: { type: 'apiKey', in: 'header', name: 'X-Subscription-Id', description: 'The subscription the call acts in; it must belong to the key’s consumer.' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The operator’s ADMIN_TOKEN.' },
      },
    },
    webhooks: {},
  },
  transformObject: (documentObject) => finishDocument(structuredClone((documentObject as { openapiObject: OpenApiDocument }).openapiObject)),
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document is plain JSON
export interface OpenApiDocument extends Json {
  paths: Record<string, Record<string, Json>>;
}

const jsonContent = (schema: unknown) => ({ 'application/json': { schema } });

/** Adds ids, reason codes, the 500, examples and the webhooks to the document @fastify/swagger built. */
export function finishDocument(doc: OpenApiDocument, examples: ExamplesFile = EXAMPLES): OpenApiDocument {
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const info = OPERATIONS[`${method.toUpperCase()} ${path}`];
      // A route without a security requirement is public or signed by other means (ingest and
      // activation callbacks carry an HMAC header their manifest names); saying `[]` tells a
      // linter and a generated client that no API key is expected.
      op.security ??= [];
      if (info) {
        op.operationId = info.operationId;
        if (!op.description && info.description) op.description = info.description;
      }
      for (const [status, schema] of Object.entries(sharedErrors(op))) {
        op.responses[status] ??= { description: schema.description, content: jsonContent(structuredClone(errorBodySchema)) };
      }
      documentReasonCodes(op, method, path);
      const recorded = info && examples.operations[info.operationId];
      if (recorded) addExamples(op, path, recorded);
    }
  }
  doc.webhooks = structuredClone(WEBHOOKS);
  for (const [name, hook] of Object.entries(doc.webhooks as Record<string, { post: Json }>)) {
    const pushed = examples.webhooks[name];
    if (pushed) hook.post.requestBody.content['application/json'].examples = { [name]: { summary: 'A real push of the virtual fleet', value: pushed.body } };
  }
  return doc;
}

/**
 * The errors every route of a kind answers from the shared hooks rather than from its own code,
 * documented here once: the consumer guard (src/http/consumer-auth.ts: 400 missing header or
 * unknown subscription, 401, 429 after too many failed authentications), the admin guard (401,
 * 429), the JSON-only check of a route with a body (400 malformed, 413 too large, 415 not JSON)
 * and the error handler's 500.
 */
function sharedErrors(op: Json) {
  const security = JSON.stringify(op.security ?? []);
  return errorResponses(
    ...(security.includes('subscriptionId') ? [400, 401, 429] : []),
    ...(security.includes('adminToken') ? [401, 429] : []),
    ...(op.requestBody ? [400, 413, 415] : []),
    500,
  );
}

/** Each error response's `reasonCode` is exactly `CAR.<status>` (the confirmation call: `car.<status>`). */
function documentReasonCodes(op: Json, method: string, path: string): void {
  for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
    const schema = response.content?.['application/json']?.schema;
    if (Number(status) < 400 || !schema?.properties?.reasonCode) continue;
    const code = errorBodyFor(method.toUpperCase(), path, Number(status), '').reasonCode;
    schema.properties.reasonCode = { type: 'string', enum: [code], description: `Always \`${code}\` for this status; \`reasonText\` says why.` };
  }
}

function addExamples(op: Json, path: string, recorded: ExamplesFile['operations'][string]): void {
  const { request, responses } = recorded;
  const media = op.requestBody?.content?.['application/json'];
  if (media && request.body !== undefined) media.examples = { request: { value: request.body } };
  const pathValues = paramsOf(path, request.path);
  for (const p of (op.parameters ?? []) as Json[]) {
    const value = p.in === 'path' ? pathValues[p.name] : p.in === 'query' ? request.query?.[p.name] : undefined;
    if (value !== undefined) p.example = value;
  }
  for (const [status, named] of Object.entries(responses)) {
    const content = op.responses[status]?.content?.['application/json'];
    if (content) content.examples = Object.fromEntries(Object.entries(named).map(([name, value]) => [name, { value }]));
  }
}

/** `{vin: 'V1…'}` from the template `/x/{vin}` and the concrete `/x/V1…`. */
export function paramsOf(template: string, concrete: string): Record<string, string> {
  const names = template.split('/');
  const values = concrete.split('/');
  const out: Record<string, string> = {};
  names.forEach((n, i) => {
    const m = /^\{(.+)\}$/.exec(n);
    if (m && values[i] !== undefined) out[m[1]!] = decodeURIComponent(values[i]!);
  });
  return out;
}
