import type { FastifyInstance } from 'fastify';
import { confirmConsent } from '../../consent/confirm.ts';
import { ApiError } from '../../errors.ts';
import { JSON_UTF8, sendError } from '../../http/error-body.ts';
import type { ConsentRoutesContext, RouteGroupOptions } from '../contexts.ts';

const NO_STORE = { 'cache-control': 'no-store' };

const confirmationSchema = {
  type: 'object',
  required: ['consentId', 'vin', 'subscriptionId', 'confirmedAt', 'consentGivenAt'],
  properties: {
    consentId: { type: 'string' },
    vin: { type: 'string' },
    subscriptionId: { type: 'string' },
    confirmedAt: { type: 'string', format: 'date-time' },
    consentGivenAt: { type: 'string', format: 'date-time' },
  },
} as const;

const errorSchema = {
  type: 'object',
  required: ['reasonCode', 'reasonText', 'url', 'method'],
  properties: { reasonCode: { type: 'string' }, reasonText: { type: 'string' }, url: { type: 'string' }, method: { type: 'string' } },
} as const;

/**
 * POST {portal_url}/api/consent/provisioning/confirmation/:code (spec 4.3, 7.1). A bad key
 * (401), someone else's code (401) or an unknown one (404) counts against the client address
 * and the presented key (src/rate-limit/auth-failures.ts): past the limit, 429 `car.429`
 * before the code is looked up, so codes cannot be guessed at speed with one valid key.
 */
export default async function confirmationRoutes(app: FastifyInstance, opts: RouteGroupOptions<ConsentRoutesContext>): Promise<void> {
  const { ctx } = opts;
  const failures = ctx.authFailures;
  // The spec sends no body; clients that still send a Content-Type (even with an empty body)
  // must not get a 4xx for it. An optional `code_verifier` (consumer PKCE) may come as JSON.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(null, undefined);
    }
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, _body, done) => done(null, undefined));

  app.post<{ Params: { code: string } }>(
    '/api/consent/provisioning/confirmation/:code',
    {
      schema: {
        summary: 'Confirm the retrieval of a consent with the code from the redirect',
        tags: ['consent'],
        security: [{ apiKey: [] }],
        params: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } },
        response: { 200: confirmationSchema, 401: errorSchema, 404: errorSchema, 409: errorSchema, 429: errorSchema },
      },
    },
    async (request, reply) => {
      const header = request.headers['x-api-key'];
      const apiKey = Array.isArray(header) ? header[0] : header;
      const keys = apiKey ? [apiKey] : [];
      const locked = failures.locked(request.ip, keys);
      if (locked) return sendError(request, reply, locked.statusCode, locked.reasonText, { ...NO_STORE, ...locked.headers });
      const body = request.body;
      const verifier =
        typeof body === 'object' && body !== null && typeof (body as Record<string, unknown>).code_verifier === 'string'
          ? ((body as Record<string, unknown>).code_verifier as string)
          : undefined;
      const result = await confirmConsent(ctx, request.params.code, apiKey, verifier);
      if (result.status === 401 || result.status === 404) {
        const e = await failures.failed(request.ip, new ApiError(result.status, result.reasonText), keys);
        return sendError(request, reply, e.statusCode, e.reasonText, { ...NO_STORE, ...e.headers });
      }
      if (result.status !== 200) return sendError(request, reply, result.status, result.reasonText, NO_STORE);
      return reply.code(200).headers(NO_STORE).type(JSON_UTF8).send(result.body);
    },
  );
}
