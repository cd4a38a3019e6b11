import type { FastifyInstance } from 'fastify';

/** One operation of the OpenAPI document the app generates. */
export interface Operation {
  method: string;
  /** OpenAPI path, e.g. /management/v1/vehicles/{vin}. */
  path: string;
  op: OpenApiOperation;
}

export interface OpenApiOperation {
  security?: Record<string, unknown>[];
  parameters?: { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema?: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema?: Record<string, unknown> }> };
  responses?: Record<string, unknown>;
  tags?: string[];
}

/** Every operation of `app.swagger()` (the app must be ready). */
export function operations(app: FastifyInstance): Operation[] {
  const doc = app.swagger() as { paths: Record<string, Record<string, OpenApiOperation>> };
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

export type AuthKind = 'admin' | 'subscription' | 'apiKey' | 'none';

/** Which credentials an operation asks for, from its `security`. */
export function authOf(op: OpenApiOperation): AuthKind {
  const s = op.security ?? [];
  if (s.some((r) => 'adminToken' in r)) return 'admin';
  if (s.some((r) => 'apiKey' in r && 'subscriptionId' in r)) return 'subscription';
  if (s.some((r) => 'apiKey' in r)) return 'apiKey';
  return 'none';
}

/** The path with every `{param}` replaced. */
export function fillPath(path: string, value: (name: string) => string): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(value(name)));
}

/** The pages that are not in the OpenAPI document (hidden HTML routes), with a GET that reaches them. */
export const HIDDEN_PAGES = ['/provision', '/callback/virtual', '/oem/virtual/authorize', '/oem/borealis/authorize', '/demo/callback'];

/** Other routes outside the document: the Swagger UI and its assets, the Prometheus scrape. */
export const HIDDEN_OTHER = ['/docs/', '/docs/json', '/docs/static/swagger-ui-bundle.js', '/metrics'];
