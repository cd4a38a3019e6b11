import helmet, { type HelmetOptions } from 'helmet';
import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import type { Settings } from '../config-sections.ts';

/** The JSON API's CSP: nothing may load, nothing may frame it. */
const API_CSP_DIRECTIVES = { defaultSrc: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"], frameAncestors: ["'none'"] };

/**
 * Security headers on every answer, so no browser sniffs, frames or leaks a referrer of what we
 * serve; set in the first onRequest hook before any route runs, so 404s and errors carry them too. The API serves JSON: its CSP allows nothing at all.
 * Pages with their own needs set their own, stricter-where-it-matters headers, which replace
 * these (a route's header wins over one set on the raw response): the consent portal and the
 * simulated manufacturers (src/http/pages/headers.ts), and the Swagger UI under /docs
 * ({@link docsCsp}). HSTS only when the public origin is https: sent over plain http it would
 * be ignored, and on localhost it would break other local services.
 */
export function helmetOptions(config: Settings<'http'>): HelmetOptions {
  const https = config.publicUrl.startsWith('https:');
  return {
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP_DIRECTIVES },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    xFrameOptions: { action: 'deny' },
    xContentTypeOptions: true,
    xPermittedCrossDomainPolicies: { permittedPolicies: 'none' },
  };
}

type HeaderCall = { set: string; value: string | number | readonly string[] } | { remove: string };

/**
 * What helmet does to a response with these options, worked out once: helmet's own middleware
 * runs against a recorder, and the returned function replays its calls on each response.
 * (@fastify/helmet built the middleware anew for every request, re-parsing the CSP each time:
 * about 4 % of a delivery request's CPU.)
 */
export function securityHeaders(options: HelmetOptions): (res: ServerResponse) => void {
  const calls: HeaderCall[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => calls.push({ set: name, value }),
    removeHeader: (name: string) => calls.push({ remove: name }),
  };
  let finished = false;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
    finished = true;
  });
  // helmet's middleware is synchronous; a version that is not would leave the list incomplete.
  if (!finished) throw new Error('helmet did not finish synchronously: security headers unknown');
  return (res) => {
    for (const c of calls) {
      if ('set' in c) res.setHeader(c.set, c.value);
      else res.removeHeader(c.remove);
    }
  };
}

/**
 * The same headers for answers Fastify gives before any hook runs (a malformed URL, see
 * src/http/framework-errors.ts), where helmet cannot add them.
 */
export function baselineSecurityHeaders(config: Settings<'http'>): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    ...(config.publicUrl.startsWith('https:') ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

/**
 * The Swagger UI's own CSP (@fastify/swagger-ui `staticCSP`), adjusted: never framed, and no
 * `upgrade-insecure-requests` on a plain-http deployment (it would send the UI's own assets
 * to an https origin that does not exist).
 */
export function docsCsp(config: Settings<'http'>): (header: string) => string {
  const https = config.publicUrl.startsWith('https:');
  return (header) => {
    const csp = header.replace(/frame-ancestors [^;]*/, "frame-ancestors 'none'");
    return https ? csp : csp.replace(/\s*upgrade-insecure-requests;?/, '').trim();
  };
}

/**
 * Connection limits: a whole request must arrive within REQUEST_TIMEOUT_MS, its headers within
 * HTTP_HEADERS_TIMEOUT_MS (slow-header attacks hold a socket for little cost), and an idle
 * keep-alive connection closes after HTTP_KEEP_ALIVE_TIMEOUT_MS.
 */
export function serverTimeouts(config: Settings<'http'>): { requestTimeout: number; keepAliveTimeout: number; http: ServerOptions } {
  const headersTimeout = Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.REQUEST_TIMEOUT_MS);
  return {
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    http: {
      // Node requires headersTimeout <= requestTimeout.
      headersTimeout,
      // Node enforces both timeouts on this tick (default 30 s, which would stretch a 10 s limit).
      connectionsCheckingInterval: Math.max(250, Math.min(5_000, Math.floor(headersTimeout / 2))),
    },
  };
}
