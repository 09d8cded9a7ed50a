// A capped Map whose entries carry an expiry (caller-supplied clock). Expired entries are dropped
// when read, and a small slice of the map is swept every few writes (a round-robin cursor), so
// garbage never accumulates even for keys nobody reads again. A full sweep runs only when the cap
// is reached and some entry is known to have expired (a lower bound on the earliest expiry is
// kept), so a store full of live entries refuses new keys without rescanning itself each time.
export class ExpiringMap<V> {
  private readonly entries = new Map<string, V>();
  private cursor: Iterator<[string, V]> | undefined;
  private writesSinceSweep = 0;
  /** No entry expires before this (a lower bound; exact after a full sweep). */
  private earliestExpiryMs = Number.POSITIVE_INFINITY;

  constructor(
    private readonly expiresAtOf: (value: V) => number,
    readonly maxEntries: number,
    /** Writes between incremental sweeps, and entries examined per sweep (2 per write). */
    private readonly sweepEvery = 32,
    private readonly sweepBatch = 64,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  /** The live value, or undefined (an expired one is removed on the way). */
  get(key: string, nowMs: number): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    if (this.expiresAtOf(value) <= nowMs) {
      this.entries.delete(key);
      return undefined;
    }
    return value;
  }

  /**
   * Store a value; false when the key is new and the map is full of live entries. Replacing an
   * existing key never fails, so a full store still lets in-flight work finish.
   */
  set(key: string, value: V, nowMs: number): boolean {
    this.tick(nowMs);
    if (!this.entries.has(key) && this.entries.size >= this.maxEntries) {
      if (nowMs >= this.earliestExpiryMs) this.sweepAll(nowMs);
      if (this.entries.size >= this.maxEntries) return false;
    }
    this.entries.set(key, value);
    this.earliestExpiryMs = Math.min(this.earliestExpiryMs, this.expiresAtOf(value));
    return true;
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.cursor = undefined;
    this.earliestExpiryMs = Number.POSITIVE_INFINITY;
  }

  /** Delete every expired entry and recompute the earliest expiry exactly. */
  private sweepAll(nowMs: number): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const [key, value] of this.entries) {
      const expiresAtMs = this.expiresAtOf(value);
      if (expiresAtMs <= nowMs) this.entries.delete(key);
      else earliest = Math.min(earliest, expiresAtMs);
    }
    this.earliestExpiryMs = earliest;
  }

  private tick(nowMs: number): void {
    this.writesSinceSweep += 1;
    if (this.writesSinceSweep < this.sweepEvery) return;
    this.writesSinceSweep = 0;
    this.sweep(nowMs, this.sweepBatch);
  }

  /** Examine up to `limit` entries from where the last sweep stopped, deleting expired ones. */
  private sweep(nowMs: number, limit: number): void {
    let examined = 0;
    let wrapped = false;
    // Bounded by `limit`, and by one lap in case nothing is expired.
    while (examined < limit && this.entries.size > 0) {
      this.cursor ??= this.entries.entries();
      const next = this.cursor.next();
      if (next.done === true) {
        this.cursor = undefined;
        // One full lap is enough for this sweep (stops an unbounded loop when nothing expires).
        if (wrapped) return;
        wrapped = true;
        continue;
      }
      examined += 1;
      const [key, value] = next.value;
      if (this.expiresAtOf(value) <= nowMs) this.entries.delete(key);
    }
  }
}
