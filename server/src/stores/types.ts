// Store interfaces: everything Veil remembers between requests goes through these small
// interfaces, each with memory, SQLite and Redis implementations that pass one conformance
// suite (stores/conformance.suite.ts). Times are unix milliseconds passed in by the caller (an
// injectable clock), TTLs explicit. Any backend failure surfaces as StoreUnavailableError so
// callers fail closed with the documented code; stores never see raw values (revocations are
// digests, sessions and idempotent responses are opaque strings).

/** A backend outage or failure. Callers map it to their route's fail-closed error code. */
export class StoreUnavailableError extends Error {
  constructor(store: string, cause?: unknown) {
    super(`${store} store unavailable`, cause === undefined ? undefined : { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** The memory idempotency store (and others with a cap) refuse new claims when full. */
export class StoreFullError extends Error {
  constructor(store: string) {
    super(`${store} store at capacity`);
    this.name = 'StoreFullError';
  }
}

/**
 * One tenant's share of a store is used up (its quota, below the store's global cap): only that
 * tenant's new writes are refused, every other tenant's still succeed. `retryAtMs` is when the
 * earliest of its entries expires and frees room (undefined when its entries never expire).
 */
export class QuotaExceededError extends Error {
  constructor(
    readonly store: string,
    readonly retryAtMs?: number,
  ) {
    super(`${store} store: tenant quota reached`);
    this.name = 'QuotaExceededError';
  }
}

/**
 * Whose quota a write counts against (the `owner` parameters below): the tenant id, or
 * GLOBAL_PARTITION for untenanted callers, who share one quota. Optional for callers that have no
 * tenant (tests, benchmarks): their writes share the NO_OWNER quota.
 */
export const NO_OWNER = '';

/**
 * Replay protection and the sealed-session deny list (decisions.md section 4). Keys are session
 * ids (128-bit random hex).
 */
export interface ReplayStore {
  /**
   * Atomically record `counter` for the session if it is strictly greater than the highest seen
   * so far; true when recorded, false when it is not (a replay). Kept until `expiresAtMs`.
   */
  advance(sessionId: string, counter: number, expiresAtMs: number, nowMs: number, owner?: string): Promise<boolean>;
  /** Put a session id on the deny list until `expiresAtMs`. */
  deny(sessionId: string, expiresAtMs: number, nowMs: number, owner?: string): Promise<void>;
  isDenied(sessionId: string, nowMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Revocation digests (HMAC of type and normalized value, computed by the caller), partitioned:
 * a tenant id, or GLOBAL_PARTITION for unscoped platform revocations. The partition is also the
 * owner whose quota an add counts against.
 */
export const GLOBAL_PARTITION = '*';
export interface RevocationStore {
  /**
   * Add digests to a partition; returns how many were not already present. Durable on return.
   * All or nothing: QuotaExceededError when the partition's quota cannot take the new ones.
   */
  add(partition: string, digests: readonly string[], nowMs: number): Promise<number>;
  /**
   * Present only on a store that forgets revocations (memory: each digest expires a retention
   * period after it was last needed). A blob was just issued holding values whose digests
   * `digests()` lists: every one of them revoked in `partitions` is kept for another retention
   * period from `nowMs`, so a revocation outlives every blob that could hold its value.
   * `digests` is only called when some partition holds revocations (computing them costs).
   */
  readonly extend?: ((partitions: readonly string[], digests: () => readonly string[], nowMs: number) => Promise<void>) | undefined;
  /** The subset of `digests` revoked in any of `partitions`. */
  revoked(partitions: readonly string[], digests: readonly string[]): Promise<Set<string>>;
  /**
   * Present only on a store that answers in process without I/O (memory): false when none of
   * `partitions` holds a revocation now, so `revoked` would find none of any digests. A rehydrate
   * then skips computing its digests (an HMAC of every form of every value of its session); a
   * store without it is always asked with the digests.
   */
  readonly holdsAny?: ((partitions: readonly string[]) => boolean) | undefined;
  count(partition: string): Promise<number>;
  /**
   * The store's key check: a value derived from the digest key its digests were written under
   * (services/revocation.ts digestKeyCheck). Records `check` when the store has none yet and
   * returns the one on record, so a process holding another digest key can refuse to start
   * rather than silently stop finding every stored revocation.
   */
  keyCheck(check: string): Promise<string>;
  close(): Promise<void>;
}

/** Server-side sessions (session.backend memory or redis): opaque payloads by id, with TTL. */
export interface SessionStore {
  put(sessionId: string, payload: string, expiresAtMs: number, nowMs: number, owner?: string): Promise<void>;
  get(sessionId: string, nowMs: number): Promise<string | undefined>;
  /** True when a live session was removed. */
  delete(sessionId: string, nowMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** A recorded 2xx response, replayed for retries with the same key. */
export interface StoredResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type ClaimResult =
  /** The caller now owns the key and must complete or release it. */
  | { readonly state: 'claimed' }
  /** A previous identical request completed: replay this. */
  | { readonly state: 'completed'; readonly response: StoredResponse }
  /** An identical request holds the claim and its in-progress TTL has not elapsed. */
  | { readonly state: 'in_progress' }
  /** The key was used with a different fingerprint (method, path or body). */
  | { readonly state: 'mismatch' }
  /** The mutation succeeded earlier but its response was too large to keep. */
  | { readonly state: 'result_unavailable' };

/**
 * One Idempotency-Key as a store sees it: the header value inside the partition of the caller
 * that sent it. A record belongs to one (tenant, identity) pair: another identity of the same
 * tenant, or an untenanted caller, sending the same header value has a different key and never
 * sees (or replays) this caller's stored response. Every store derives its storage key from all
 * three parts (shared.ts idempotencyStorageKey), so none can forget the partition.
 */
export interface IdempotencyKey {
  /** The caller's tenant; null for an untenanted (platform) caller. */
  readonly tenant: string | null;
  /** The authenticated identity (API-key entry identity, token `sub`; `dev` in dev mode). */
  readonly identity: string;
  /** The Idempotency-Key header value. */
  readonly key: string;
}

/**
 * Idempotency keys (interface.md sections 3, 7, 8), partitioned by tenant and identity (see
 * IdempotencyKey); `fingerprint` is a digest of method, path and body. A claim older than
 * `inProgressTtlMs` is reclaimable; completed records live `ttlMs`.
 */
export interface IdempotencyStore {
  /**
   * Throws StoreFullError when a new claim cannot be stored, QuotaExceededError when the share of
   * the key's tenant (shared.ts idempotencyOwner) is used up.
   */
  claim(key: IdempotencyKey, fingerprint: string, nowMs: number, inProgressTtlMs: number, ttlMs: number): Promise<ClaimResult>;
  /**
   * Record the response (2xx only; the caller checks). `response` undefined marks
   * result_unavailable, which is also what is kept when the response does not fit the tenant's
   * share (the mutation already ran; only its replay is lost).
   */
  complete(key: IdempotencyKey, fingerprint: string, response: StoredResponse | undefined, nowMs: number, ttlMs: number): Promise<void>;
  /** Drop the claim after a non-2xx answer so an identical retry may run again (freeing its room in the tenant's quota). */
  release(key: IdempotencyKey, fingerprint: string): Promise<void>;
  close(): Promise<void>;
}

/** The state stores, by role; `sessions` only with a server-side session backend. */
export interface AppStores {
  readonly replay: ReplayStore;
  readonly revocation: RevocationStore;
  readonly idempotency: IdempotencyStore;
  readonly sessions?: SessionStore | undefined;
  /** Can the shared backends be reached (Redis PING within the timeout)? Absent: nothing to ask. */
  ping?(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}
