import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/crypto.ts';
import { openSqliteStore } from '../../src/store/sqlite/open.ts';
import { createTestApp } from '../helpers/app.ts';
import { seedVehicle } from '../push/helpers.ts';

/*
 * What a copy of the data folder allows (docs/security.md, "Erasure"): the erasure's audit event
 * names the vehicle only by its keyed pseudonym, but DATA_DIR also holds secret.key (when
 * SECRET_KEY is not set). With both, a VIN is a guess away: a manufacturer's VINs share a prefix
 * and differ in a serial, so trying the serials of a prefix finds the erased VIN in seconds.
 * Without the key, the same search finds nothing.
 */
const VIN = 'V1RTUALV1N0012345';

describe('the erasure record in a copy of DATA_DIR', () => {
  const copy = mkdtempSync(join(tmpdir(), 'cvd-datadir-copy-'));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('names the VIN by pseudonym only; with secret.key from the same folder, trying a prefix\'s serials finds it', async () => {
    const t = await createTestApp();
    try {
      await seedVehicle(t.services, 'sub-1', VIN);
      const res = await t.app.inject({ method: 'DELETE', url: `/admin/v1/vehicles/${VIN}/data`, headers: { authorization: 'Bearer test-admin-token' } });
      expect(res.statusCode).toBe(200);
      // The copy a backup, a stolen disk or a shared folder would hold.
      cpSync(t.dataDir, copy, { recursive: true });
    } finally {
      await t.cleanup();
    }
    const store = openSqliteStore(join(copy, 'store.sqlite'));
    try {
      const [event] = await store.audit.list({ type: 'gdpr.erasure' });
      expect(event?.subject).toMatch(/^p_[A-Za-z0-9_-]{16}$/);
      expect(JSON.stringify(event)).not.toContain(VIN);

      const search = (key: string): string[] => {
        const box = createSecretBox(key);
        const found: string[] = [];
        for (let serial = 0; serial < 20_000; serial++) {
          const candidate = `V1RTUALV1N${String(serial).padStart(7, '0')}`;
          if (box.pseudonym(candidate) === event!.subject) found.push(candidate);
        }
        return found;
      };
      const started = performance.now();
      expect(search(readFileSync(join(copy, 'secret.key'), 'utf8').trim())).toEqual([VIN]);
      // Printed for docs/security.md: the cost of a guess.
      console.log(`erasure pseudonym: 20,000 serials tried in ${(performance.now() - started).toFixed(0)} ms`);
      expect(search('another key, as SECRET_KEY kept outside the folder would be')).toEqual([]);
    } finally {
      await store.close();
    }
  }, 60_000);
});
