import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { freePort } from '../helpers/free-port.ts';
import { deployment, type Deployment } from './service-env.ts';
import { startService, startWorker, type ServiceProcess } from './service-process.ts';

/**
 * Every process of one installation must share SECRET_KEY (docs/operations.md): a process with
 * another key cannot open the batches, activation jobs and notices the others seal, so it would
 * fail them for good, and the webhook secrets it reads would not decrypt. Processes sharing
 * Redis and QUEUE_PREFIX agree on a keyed fingerprint there; one whose key differs stops at once
 * with exit code 78 and says why. Real processes, real Redis.
 */
describe('SECRET_KEY agreement between the processes of one installation', () => {
  let d: Deployment | undefined;
  const procs: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.stop()));
    d?.cleanup();
    d = undefined;
  });

  it('a second process with another SECRET_KEY exits 78 naming the setting; one with the same key runs', async () => {
    d = deployment(inject('redisUrl'));
    await startWorker(d, procs, { name: 'first' });
    const same = await startWorker(d, procs, { name: 'same-key' });
    expect(same.lines.some((l) => l.includes('SECRET_KEY'))).toBe(false);

    const other = startService('other-key', { env: d.env({ ROLES: 'pipeline', PROBE_PORT: String(await freePort()), SECRET_KEY: randomBytes(32).toString('base64url') }) });
    procs.push(other);
    const exit = await other.exited;
    expect(exit.code).toBe(78);
    expect(other.lines.some((l) => l.includes('SECRET_KEY differs from the one the other processes of this installation use'))).toBe(true);
  }, 60_000);
});
