/**
 * A bounded two-level map (scope → key → value) whose entries expire after `maxAgeMs`, can be
 * dropped by scope (e.g. every VIN of one subscription), and refuses a fill that raced with an
 * invalidation. Two levels rather than joined keys: lookups on the hot path then reuse the
 * strings they already have instead of building and hashing a new one each time.
 *
 * The race: a request reads the store (old state), a writer commits and invalidates, then the
 * request stores what it read. To prevent that, a filler takes a {@link ReadCache.mark} before
 * reading the store and passes it to {@link ReadCache.set}; any invalidation in between bumps
 * the epoch and the set is dropped (the request still uses what it read, like any read that
 * began before the write).
 */
export class ReadCache<V> {
  private readonly scopes = new Map<string, Map<string, { value: V; at: number }>>();
  private count = 0;
  private epoch = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  get size(): number {
    return this.count;
  }

  get(scope: string, key: string, nowMs: number): V | undefined {
    const entries = this.scopes.get(scope);
    const e = entries?.get(key);
    if (!e) return undefined;
    // A clock that went backwards also expires the entry: its age is unknown.
    if (nowMs - e.at >= this.maxAgeMs || nowMs < e.at) {
      this.remove(scope, key);
      return undefined;
    }
    return e.value;
  }

  /** Taken before reading the store for a fill. */
  mark(): number {
    return this.epoch;
  }

  /**
   * Stores a fill unless an invalidation happened since `mark`. When full, drops the oldest
   * scope's oldest entry.
   */
  set(scope: string, key: string, value: V, mark: number, nowMs: number): void {
    if (mark !== this.epoch) return;
    this.remove(scope, key);
    if (this.count >= this.maxEntries) {
      const [oldScope, entries] = this.scopes.entries().next().value!;
      this.remove(oldScope, entries.keys().next().value!);
    }
    let entries = this.scopes.get(scope);
    if (!entries) this.scopes.set(scope, (entries = new Map()));
    entries.set(key, { value, at: nowMs });
    this.count++;
  }

  delete(scope: string, key: string): void {
    this.epoch++;
    this.remove(scope, key);
  }

  /** Drops every entry of this scope. */
  deleteScope(scope: string): void {
    this.epoch++;
    this.count -= this.scopes.get(scope)?.size ?? 0;
    this.scopes.delete(scope);
  }

  clear(): void {
    this.epoch++;
    this.scopes.clear();
    this.count = 0;
  }

  private remove(scope: string, key: string): void {
    const entries = this.scopes.get(scope);
    if (!entries?.delete(key)) return;
    this.count--;
    if (entries.size === 0) this.scopes.delete(scope);
  }
}
