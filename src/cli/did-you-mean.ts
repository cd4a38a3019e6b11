/** Edit distance (insertions, deletions, substitutions) between two strings. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The candidates within `maxDistance` edits of `word` (case-insensitive), closest first, at
 * most three: a typo of one or two letters ("milage", "mapings test") is what this catches.
 */
export function closest(word: string, candidates: Iterable<string>, maxDistance = 2): string[] {
  const w = word.toLowerCase();
  return [...new Set(candidates)]
    .map((c) => ({ c, d: levenshtein(w, c.toLowerCase()) }))
    .filter(({ d }) => d <= maxDistance)
    .sort((x, y) => x.d - y.d || x.c.localeCompare(y.c))
    .slice(0, 3)
    .map(({ c }) => c);
}

/** ` (did you mean "x" or "y"?)` for these names, or "" for none. */
export function suggestion(near: readonly string[]): string {
  return near.length === 0 ? '' : ` (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)`;
}

/** ` (did you mean "x"?)` for the candidates close to `word`, or "" when nothing is close. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  return suggestion(closest(word, candidates));
}

/** `unknown <what>: a, b (did you mean ...)` for every name not among `known`, or undefined when all are known. */
export function unknownNames(what: string, names: readonly string[], known: readonly string[]): string | undefined {
  const knownSet = new Set(known);
  const unknown = names.filter((n) => !knownSet.has(n));
  if (unknown.length === 0) return undefined;
  return `unknown ${what}: ${unknown.map((n) => `${n}${didYouMean(n, known)}`).join(', ')}`;
}
