import type { OpenApiDocument } from '../../src/http/openapi/document.ts';
import sandboxRoutes from '../../src/virtual/sandbox/index.ts';
import { createTestApp } from '../helpers/app.ts';

/** The document as the service serves it at /docs/json (with the simulator on: the sandbox too). */
export async function servedDocument(): Promise<OpenApiDocument> {
  // As a process with the simulator on serves it: the sandbox included (never called here).
  const t = await createTestApp({
    mount: async (app, services) => {
      await app.register(sandboxRoutes, { services });
    },
  });
  try {
    const res = await t.app.inject({ method: 'GET', url: '/docs/json' });
    if (res.statusCode !== 200) throw new Error(`/docs/json answered ${res.statusCode}`);
    return res.json();
  } finally {
    await t.cleanup();
  }
}

export interface Operation {
  /** `GET /path` or `webhook vehicleData`. */
  key: string;
  method: string;
  path: string;
  op: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- plain JSON
}

/** Every operation of the document: the paths' and the webhooks'. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) out.push({ key: `${method.toUpperCase()} ${path}`, method, path, op });
  }
  for (const [name, hook] of Object.entries((doc.webhooks ?? {}) as Record<string, Record<string, Record<string, unknown>>>)) {
    for (const [method, op] of Object.entries(hook)) out.push({ key: `webhook ${name}`, method, path: name, op });
  }
  return out;
}

/** The JSON examples of a media object, as values. */
export function examplesOf(media: { examples?: Record<string, { value: unknown }> } | undefined): unknown[] {
  return Object.values(media?.examples ?? {}).map((e) => e.value);
}
