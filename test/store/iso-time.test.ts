import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/store/sqlite/iso-time.ts';

describe('isoTime', () => {
  it('is toISOString for times across and around days, before 1970 and in extended years', () => {
    const samples = [0, -1, 1, 86_399_999, 86_400_000, -86_400_000, -86_400_001, 1767225600000, 1767225599999, 253402300799999, 253402300800000, -62167219200001, 8.64e15, -8.64e15];
    let ms = -8e15;
    for (let i = 0; i < 20_000; i++) {
      samples.push(ms, ms + 1, ms - 1);
      ms += 7.99e11 + i * 13;
    }
    for (const s of samples) expect(isoTime(s), String(s)).toBe(new Date(s).toISOString());
  });

  it('gives null for an invalid time and truncates a fractional one as Date does', () => {
    expect(isoTime(8.64e15 + 1)).toBeNull();
    expect(isoTime(Number.NaN)).toBeNull();
    expect(isoTime(1.7)).toBe(new Date(1.7).toISOString());
    expect(isoTime(-1.7)).toBe(new Date(-1.7).toISOString());
  });
});
