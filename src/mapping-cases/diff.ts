import { isDeepStrictEqual } from 'node:util';

/**
 * Field-by-field differences between an expected and an actual payload, one line per field
 * as a JSON pointer: `/value: expected 71.5, got 7.15`, `/unit: missing (expected "km")`,
 * `/extra: not expected (got 3)`. Objects are compared key by key, down to the differing
 * leaves; arrays of another length, or values of another type, as one line.
 */
export function fieldDiff(expected: unknown, actual: unknown, at = ''): string[] {
  if (isDeepStrictEqual(expected, actual)) return [];
  const show = (v: unknown) => JSON.stringify(v);
  if (isRecord(expected) && isRecord(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    return keys.flatMap((k) => {
      const here = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!(k in actual)) return [`${here}: missing (expected ${show(expected[k])})`];
      if (!(k in expected)) return [`${here}: not expected (got ${show(actual[k])})`];
      return fieldDiff(expected[k], actual[k], here);
    });
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    return expected.flatMap((e, i) => fieldDiff(e, actual[i], `${at}/${i}`));
  }
  return [`${at || '/'}: expected ${show(expected)}, got ${show(actual)}`];
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
