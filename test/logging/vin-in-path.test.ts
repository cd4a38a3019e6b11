import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConsumer, createTestApp, type TestApp, type TestConsumer } from '../helpers/app.ts';

const VIN = 'V1RTUALV1N0000002';

/**
 * VINs never in clear in logs: a VIN followed (or preceded) by junk in a path was logged in clear, since
 * redaction only matched a segment that was exactly a valid VIN. Real HTTP requests, so the
 * URL is logged exactly as a client sent it (percent-escapes included).
 */
describe('a VIN in a request path is redacted from logs whatever surrounds it', () => {
  let t: TestApp;
  let c: TestConsumer;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    c = await addConsumer(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => t.cleanup());

  const paths = [
    `/management/v1/vehicles/${VIN}%00`,
    `/management/v1/vehicles/${VIN}%20`,
    `/management/v1/vehicles/${VIN}.json`,
    `/management/v1/vehicles/${VIN}xyz`,
    `/management/v1/vehicles/xx${VIN}`,
    `/management/v1/vehicles/${VIN.toLowerCase()}%0a`,
    // Percent-escaped letters: the server decodes them to the VIN, so must the redaction.
    `/management/v1/vehicles/%56%31RTUALV1N0000002`,
    // Not a VIN (an I, an O) but a typo of one is still the vehicle's identifier.
    `/management/v1/vehicles/V1RTUALV1N000000I`,
    `/delivery/v1/history/${VIN}%00/mileage`,
    `/admin/v1/vehicles/${VIN}%00/data`,
    // No route at all: the VIN is redacted wherever it stands.
    `/nowhere/${VIN}%00/more`,
    `/nowhere/a-${VIN}-b`,
  ];

  it.each(paths)('%s', async (path) => {
    const before = t.logs.length;
    const res = await fetch(`${base}${path}`, { headers: c.headers });
    await res.arrayBuffer();
    // The response is logged after it is sent: wait for its line.
    for (let i = 0; i < 100 && !t.logs.slice(before).join('').includes('request completed'); i++) await new Promise((r) => setTimeout(r, 10));
    const lines = t.logs.slice(before).join('');
    expect(lines).toContain('request completed');
    const logged = lines.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { req?: { url?: string } }).req?.url).filter(Boolean);
    expect(logged.length).toBeGreaterThan(0);
    for (const url of logged) expect(url).toContain('[vin]');
    const upper = lines.toUpperCase();
    expect(upper).not.toContain(VIN);
    expect(upper).not.toContain('V1RTUALV1N000000I');
    expect(upper).not.toContain('%56%31RTUALV1N0000002');
  });
});
