import { afterEach, describe, expect, it } from 'vitest';
import { startRoles, stopRoles } from '../../src/main/roles.ts';
import type { Running } from '../../src/running.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

/**
 * The pipeline charts' sampler runs where something it charts is counted: not in a process
 * that only runs the simulator (it counts none of it, and would only hold a timer and Redis).
 */
describe('which roles sample for the pipeline charts', () => {
  let t: TestServices | undefined;
  let running: Running[] = [];
  afterEach(async () => {
    await stopRoles(running);
    running = [];
    await t?.cleanup();
    t = undefined;
  });

  it('a simulator-only process starts no sampler; a push process does', async () => {
    t = await createTestServices({ env: { ROLES: 'simulator', SIMULATOR: 'off' } });
    running = await startRoles(t.services);
    expect(running.map((r) => r.name)).not.toContain('console-sampler');
    await stopRoles(running);
    running = [];
    await t.cleanup();

    t = await createTestServices({ env: { ROLES: 'push' } });
    running = await startRoles(t.services);
    expect(running.map((r) => r.name)).toContain('console-sampler');
  });
});
