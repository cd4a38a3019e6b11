import { describe, expect, it } from 'vitest';
import { decodeInvalidation, encodeInvalidation } from '../../src/read-model/invalidation.ts';

describe('invalidation messages', () => {
  const pseudonym = (vin: string) => `p_${vin.length}${vin.slice(-2)}`;

  it('round-trip, with VINs sent as pseudonyms only', () => {
    expect(decodeInvalidation(encodeInvalidation({ kind: 'keys' }, pseudonym))).toEqual({ kind: 'keys' });
    expect(decodeInvalidation(encodeInvalidation({ kind: 'all' }, pseudonym))).toEqual({ kind: 'all' });
    expect(decodeInvalidation(encodeInvalidation({ kind: 'access', subscriptionId: 'sub-1' }, pseudonym))).toEqual({ kind: 'access', subscriptionId: 'sub-1' });
    const text = encodeInvalidation({ kind: 'data', vins: ['V1RTUALV1N0000001', 'V1RTUALV1N0000002'] }, pseudonym);
    expect(text).not.toMatch(/V1RTUALV1N/);
    expect(decodeInvalidation(text)).toEqual({ kind: 'data', pseudonyms: ['p_1701', 'p_1702'] });
    const erased = encodeInvalidation({ kind: 'erased', vin: 'V1RTUALV1N0000003' }, pseudonym);
    expect(erased).not.toMatch(/V1RTUALV1N/);
    expect(decodeInvalidation(erased)).toEqual({ kind: 'erased', pseudonym: 'p_1703' });
    const scoped = encodeInvalidation({ kind: 'erased', vin: 'V1RTUALV1N0000003', subscriptionId: 'sub-1' }, pseudonym);
    expect(scoped).not.toMatch(/V1RTUALV1N/);
    expect(decodeInvalidation(scoped)).toEqual({ kind: 'erased', pseudonym: 'p_1703', subscriptionId: 'sub-1' });
  });

  it('reads anything it does not understand as "drop everything"', () => {
    for (const text of ['', 'x', 'a ', 'e ', 'e p sub extra', 'garbage message']) expect(decodeInvalidation(text)).toEqual({ kind: 'all' });
  });
});
