import { describe, expect, it } from 'vitest';
import { isoText } from '../../src/domain/iso-text.ts';

describe('isoText', () => {
  it('is toISOString for times across and around days, before 1970 and in extended years', () => {
    const samples = [0, -1, 1, 86_399_999, 86_400_000, -86_400_000, -86_400_001, 1767225600000, 1767225599999, 253402300799999, 253402300800000, -62167219200001, 8.64e15, -8.64e15];
    let ms = -8e15;
    for (let i = 0; i < 20_000; i++) {
      samples.push(ms, ms + 1, ms - 1);
      ms += 7.99e11 + i * 13;
    }
    for (const s of samples) expect(isoText(s), String(s)).toBe(new Date(s).toISOString());
  });

  it('gives null for an invalid time and truncates a fractional one as Date does', () => {
    expect(isoText(8.64e15 + 1)).toBeNull();
    expect(isoText(Number.NaN)).toBeNull();
    expect(isoText(1.7)).toBe(new Date(1.7).toISOString());
    expect(isoText(-1.7)).toBe(new Date(-1.7).toISOString());
  });
});
