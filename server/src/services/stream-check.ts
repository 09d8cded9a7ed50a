// The checks an open incremental rehydrate (/v1/rehydrate/stream with an ndjson body) repeats
// before every piece it restores (docs/api.md, "Streaming (SSE)"). A stream may stay open
// for minutes; a value revoked, a session invalidated (DELETE /v1/sessions, rag/delete) or a
// blob expiring meanwhile must take effect on the next delta, exactly as a new /v1/rehydrate
// would see it, not when the stream ends.
//
// Kept cheap: expiry and the lifetime bound are clock comparisons done on every delta; the
// store is asked only when the text about to be restored holds tokens of the session, and then
// once for the deny list and once (batched) for the revocation digests of just those values
// that are not already known to be revoked. A revoked id is never un-revoked for the stream.
import { findTokensLenient } from '../domain/repair/index.js';
import type { SessionPayload } from '../domain/seal/index.js';
import { entryDigests, partitionsFor, revocationRegions, withStore } from './revocation.js';
import { assertNotDenied, assertWithinLifetime, type StateDeps } from './state.js';

export class LiveSessionCheck {
  readonly #deps: StateDeps;
  readonly #session: SessionPayload;
  readonly #tenant: string | null;
  /** Token ids of the session, for the lookup of what a piece of output refers to. */
  readonly #entries: ReadonlyMap<string, SessionPayload['entries'][number]>;
  /** Ids known revoked: shared with the restore function, which reads it on every piece. */
  readonly #revoked: string[];
  /** Every digest an entry may have been revoked under (revocation.ts, revocationForms). */
  readonly #digests = new Map<string, string[]>();
  readonly #regions: readonly string[];

  /** `revoked` is the list the stream's restore reads; newly revoked ids are appended to it. */
  constructor(deps: StateDeps, session: SessionPayload, tenant: string | null, revoked: string[]) {
    this.#deps = deps;
    this.#session = session;
    this.#tenant = tenant;
    this.#revoked = revoked;
    this.#entries = new Map(session.entries.map((entry) => [entry.id, entry]));
    this.#regions = revocationRegions(session.language, deps.config.detector.default_region);
  }

  /**
   * Check before restoring from `text` (the held-back output plus the new delta: a superset of
   * what the next piece can restore). Throws VEIL_SESSION_EXPIRED when the blob expired, is too
   * old or its session was invalidated; a store outage fails closed with its code.
   */
  async check(text: string): Promise<void> {
    assertWithinLifetime(this.#deps, this.#session);
    const known = new Set(this.#revoked);
    const fresh = new Set<string>();
    let referenced = false;
    for (const candidate of findTokensLenient(text)) {
      const id = candidate.token?.id;
      if (id === undefined || !this.#entries.has(id)) continue;
      referenced = true;
      if (!known.has(id)) fresh.add(id);
    }
    // No value of the session can be restored from this text: nothing to ask the store.
    if (!referenced) return;
    const lookup = fresh.size === 0 ? Promise.resolve(new Set<string>()) : this.#revokedAmong([...fresh]);
    const [revokedIds] = await Promise.all([lookup, assertNotDenied(this.#deps, this.#session)]);
    for (const id of revokedIds) this.#revoked.push(id);
  }

  async #revokedAmong(ids: readonly string[]): Promise<Set<string>> {
    const store = this.#deps.stores.revocation;
    const partitions = partitionsFor(this.#tenant);
    // A store that answers in process that these partitions hold no revocation (the memory store):
    // no digest to compute for this delta (asked again on the next one: a revocation may arrive).
    if (store.holdsAny?.(partitions) === false) return new Set();
    const byDigest = new Map<string, string[]>();
    for (const id of ids) {
      for (const digest of this.#digestsOf(id)) byDigest.set(digest, [...(byDigest.get(digest) ?? []), id]);
    }
    const revoked = await withStore(() => store.revoked(partitions, [...byDigest.keys()]));
    return new Set([...revoked].flatMap((digest) => byDigest.get(digest) ?? []));
  }

  #digestsOf(id: string): readonly string[] {
    let digests = this.#digests.get(id);
    if (digests === undefined) {
      digests = entryDigests(this.#deps.digestSecret, this.#entries.get(id)!, this.#regions);
      this.#digests.set(id, digests);
    }
    return digests;
  }
}
