import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';
import { authOf, fillPath, operations } from './operations.ts';

const ADMIN = { authorization: 'Bearer test-admin-token' };
const LIMIT = 4096;

/** Opens a socket, writes `bytes`, and resolves with what came back and when the server closed it. */
function holdOpen(port: number, bytes: string): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
  });
}

/** Bounded inputs: body size limits and connection timeouts on every route, so one client cannot hold the memory or the sockets. */
describe('request limits', () => {
  let t: TestApp;
  let c: TestConsumer;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({
      env: { BODY_LIMIT_BYTES: String(LIMIT), REQUEST_TIMEOUT_MS: '2000', HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000' },
    });
    c = await addConsumer(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  afterAll(async () => t?.cleanup());

  it('every operation that takes a JSON body refuses one over BODY_LIMIT_BYTES with 413 and the error body', async () => {
    const withBody = operations(t.app).filter((o) => o.op.requestBody?.content['application/json']);
    expect(withBody.length).toBeGreaterThan(5);
    const big = JSON.stringify({ padding: 'x'.repeat(LIMIT * 2) });
    for (const o of withBody) {
      const auth = authOf(o.op);
      const headers = auth === 'admin' ? ADMIN : auth === 'subscription' ? c.headers : auth === 'apiKey' ? { 'x-api-key': c.apiKey } : {};
      const url = fillPath(o.path, (n) => (/vin/i.test(n) ? 'V1RTUALV1N0000001' : /manufacturer/i.test(n) ? 'borealis' : '00000000-0000-4000-8000-000000000000'));
      const res = await t.app.inject({ method: o.method as 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: big });
      const label = `${o.method} ${url}`;
      expect(res.statusCode, label).toBe(413);
      expect(res.json(), label).toEqual({ reasonCode: 'CAR.413', reasonText: `Request body larger than ${LIMIT} bytes.`, url, method: o.method });
    }
  });

  it('the consent portal form refuses a huge form post too', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/provision',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `vin=${'A'.repeat(70 * 1024)}`,
    });
    expect(res.statusCode).toBe(413);
  });

  it('a client that never finishes its headers is answered 408 and cut off after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const { answer, closedAfterMs } = await holdOpen(port, 'GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(1_900);
  });

  it('a client that never finishes its body is cut off after REQUEST_TIMEOUT_MS', async () => {
    const { answer, closedAfterMs } = await holdOpen(
      port,
      `POST /admin/v1/consumers HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${ADMIN.authorization}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(1_900);
    expect(closedAfterMs).toBeLessThan(3_500);
  });

  it('an idle keep-alive connection is closed after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const { answer, closedAfterMs } = await holdOpen(port, 'GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(closedAfterMs).toBeLessThan(2_500);
  });
});
