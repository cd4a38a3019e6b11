import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { manufacturerAuth } from '../../src/consent/manufacturer-auth.ts';
import { copyProject } from '../pipeline/harness.ts';
import { createTestServices, type TestServices } from '../helpers/services.ts';

/**
 * The OAuth client secret of a manufacturer whose authorization server is outside this service
 * was issued by that server: when its variable is unset, a secret derived from SECRET_KEY can
 * only be wrong, and every token exchange would fail at the first real consent. The start
 * stops instead, naming the variable. The simulated servers this service hosts (paths) keep
 * their derived secret.
 */
describe('OAuth client secret of an outside authorization server', () => {
  let project: ReturnType<typeof copyProject> | undefined;
  let t: TestServices | undefined;
  afterEach(async () => {
    await t?.cleanup();
    project?.cleanup();
    t = project = undefined;
  });

  function outsideBorealis() {
    project = copyProject();
    const file = join(project.paths.adapters, 'borealis', 'manifest.json');
    const m = JSON.parse(readFileSync(file, 'utf8'));
    Object.assign(m.authorization, {
      issuer: 'https://auth.borealis.example',
      authorizationEndpoint: 'https://auth.borealis.example/authorize',
      tokenEndpoint: 'https://auth.borealis.example/token',
      clientSecretEnv: 'OAUTH_CLIENT_SECRET_BOREALIS_TEST_UNSET',
    });
    writeFileSync(file, JSON.stringify(m));
    return project.paths;
  }

  it('stops the start, naming the unset variable', async () => {
    const paths = outsideBorealis();
    delete process.env.OAUTH_CLIENT_SECRET_BOREALIS_TEST_UNSET;
    await expect(createTestServices({ paths })).rejects.toThrow(/OAUTH_CLIENT_SECRET_BOREALIS_TEST_UNSET is not set.*borealis/);
  });

  it('uses the variable when it is set, and a hosted server keeps its derived secret', async () => {
    const paths = outsideBorealis();
    process.env.OAUTH_CLIENT_SECRET_BOREALIS_TEST_UNSET = 'issued-by-borealis';
    try {
      t = await createTestServices({ paths });
      expect(manufacturerAuth(t.services.config, t.services.adapters.get('borealis')!).clientSecret).toBe('issued-by-borealis');
      expect(manufacturerAuth(t.services.config, t.services.adapters.get('virtual')!).clientSecret ?? 'none').toBeTruthy();
    } finally {
      delete process.env.OAUTH_CLIENT_SECRET_BOREALIS_TEST_UNSET;
    }
  });
});
