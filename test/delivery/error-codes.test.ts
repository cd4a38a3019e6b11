import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ITEM_ERRORS, VEHICLE_ERRORS } from '../../src/delivery/error-codes.ts';

/** docs/delivery-errors.md is what consumers read: every code we send must be there, with its message. */
describe('delivery error codes are documented', () => {
  const doc = readFileSync(join(import.meta.dirname, '../../docs/delivery-errors.md'), 'utf8');
  for (const [code, message] of Object.entries({ ...VEHICLE_ERRORS, ...ITEM_ERRORS })) {
    it(code, () => {
      expect(doc).toContain(`| \`${code}\` | \`${message}\` |`);
    });
  }
});
