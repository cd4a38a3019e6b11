/**
 * One value of a query parameter or form field. Fastify (and @fastify/formbody) hand a field given
 * twice (`?vin=a&vin=b`) to the route as an array, whatever the route's TypeScript type says; a
 * page that shows or filters by the value takes the first string, as a browser's form sends one.
 */
export function singleValue(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}

/** The named query parameters, each as one string (or absent): see {@link singleValue}. */
export function singleValues<K extends string>(query: unknown, names: readonly K[]): Partial<Record<K, string>> {
  const q = typeof query === 'object' && query !== null ? (query as Record<string, unknown>) : {};
  const out: Partial<Record<K, string>> = {};
  for (const name of names) {
    const v = Object.hasOwn(q, name) ? singleValue(q[name]) : undefined;
    if (v !== undefined) out[name] = v;
  }
  return out;
}
