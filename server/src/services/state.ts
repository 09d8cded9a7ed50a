// Session handles and the store checks around them: where an incoming session comes from
// (a sealed blob, or a server-side id), replay protection and the deny list for continuations,
// and what handle a response carries. Store outages fail closed with the documented codes.
//
// Invalidation must outlive every blob of the session (docs/api.md "Sessions"). A session id
// lives on through continuations, each blob with its own expiry, and a client may keep any of
// them; so a deny lasts the longest lifetime any blob can have under the configuration
// (maxBlobLifetimeSeconds) plus a clock-skew allowance (session.clock_skew_seconds), and every
// use of a blob refuses one older than that lifetime even when its own expiry is later (issued
// under a longer TTL that was lowered since). Together: no blob issued before a deny outlives it, and a denied session
// can neither be rehydrated nor continued.
//
// The same bound lets a memory revocation store forget: a digest is kept that long after the last blob that could hold its value was issued, so every outgoing session
// extends the revocations of its values (outgoingHandle); no blob that could hold a revoked value
// outlives the revocation. Every write here counts against the tenant's quota of the store; a
// tenant at its quota gets its own 429 (services/quota.ts).
import { VeilError } from '@veil/common';
import type { VeilConfig } from '../config/index.js';
import { openSession, SESSION_KINDS, type KeyRing } from '../domain/seal/index.js';
import { StoreUnavailableError, type AppStores } from '../stores/types.js';
import { rethrowQuota } from './quota.js';
import { entryDigests, partitionOf, partitionsFor, revocationRegions, withStore } from './revocation.js';
import { withTrailingFields, type JsonText } from './json-text.js';

/**
 * What the session checks need: the configuration, the stores, the clock, the revocation digest
 * key and the tenants' key rings (a memory revocation store re-opens an outgoing blob).
 */
export interface StateDeps {
  readonly config: VeilConfig;
  readonly stores: AppStores;
  readonly now: () => number;
  readonly digestSecret: Buffer;
  readonly reload: { keyRingFor(tenant: string | null): KeyRing };
}

/**
 * The longest lifetime, in seconds, any kind of blob is issued with under `config`: transform,
 * batch, query and context blobs live session.ttl_seconds, RAG chunk and aggregate blobs
 * rag.document_ttl_seconds. A per-tenant or per-kind TTL added later must be included here.
 */
export function maxBlobLifetimeSeconds(config: VeilConfig): number {
  return Math.max(config.session.ttl_seconds, config.rag.document_ttl_seconds ?? 0);
}

/**
 * How long a session-scoped record must outlive the moment it is written for no blob to outlive
 * it: the longest blob lifetime plus the clock-skew allowance. Deny-list entries last this long;
 * so does a memory revocation after the last blob holding its value was issued.
 */
export function longestBlobRetentionMs(config: VeilConfig): number {
  // Replicas compare expiry with their own clocks: the record outlives every blob by this margin.
  return (maxBlobLifetimeSeconds(config) + config.session.clock_skew_seconds) * 1000;
}

/** What the store-side checks need of an opened blob: its session id and issue time (unix s). */
export interface BlobIdentity {
  readonly sid: string;
  readonly iat: number;
}

function serverSide(deps: StateDeps): boolean {
  return deps.config.session.backend !== 'sealed';
}

async function replayStore<T>(deps: StateDeps, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw new VeilError('VEIL_REPLAY_STORE_UNAVAILABLE', undefined, error.message);
    throw rethrowQuota(error, deps.now());
  }
}

async function sessionStore<T>(deps: StateDeps, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw new VeilError('VEIL_STORE_UNAVAILABLE', undefined, error.message);
    throw rethrowQuota(error, deps.now());
  }
}

/**
 * The sealed blob behind a request: `session_state` as given, or the blob a server-side
 * session id points to. `session_id` under the sealed backend is refused.
 */
export async function incomingSession(deps: StateDeps, sessionId: string | undefined, sessionState: string | undefined): Promise<string | undefined> {
  if (sessionId === undefined) return sessionState;
  if (!serverSide(deps) || deps.stores.sessions === undefined) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'session_id: server-side sessions are not enabled (session.backend is sealed); send session_state');
  }
  if (sessionState !== undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'session_id: send either session_id or session_state, not both');
  const store = deps.stores.sessions;
  const blob = await sessionStore(deps, () => store.get(sessionId, deps.now()));
  if (blob === undefined) throw new VeilError('VEIL_SESSION_EXPIRED');
  return blob;
}

/**
 * The checks every use of an opened blob passes: not older than the longest lifetime now
 * configured, and its session not invalidated (DELETE /v1/sessions, rag/delete) on any replica.
 */
export async function assertNotDenied(deps: StateDeps, blob: BlobIdentity): Promise<void> {
  assertWithinLifetime(deps, blob);
  const denied = await replayStore(deps, () => deps.stores.replay.isDenied(blob.sid, deps.now()));
  if (denied) throw new VeilError('VEIL_SESSION_EXPIRED');
}

/**
 * The local half of assertNotDenied (no store): the blob has not expired (`exp`, when given)
 * and is not older than the longest blob lifetime now configured.
 */
export function assertWithinLifetime(deps: Pick<StateDeps, 'config' | 'now'>, blob: BlobIdentity & { readonly exp?: number }): void {
  const nowMs = deps.now();
  if (blob.exp !== undefined && nowMs >= blob.exp * 1000) throw new VeilError('VEIL_SESSION_EXPIRED', undefined, 'session_state expired');
  if (nowMs >= (blob.iat + maxBlobLifetimeSeconds(deps.config)) * 1000) {
    throw new VeilError('VEIL_SESSION_EXPIRED', undefined, 'session_state older than the longest blob lifetime');
  }
}

/**
 * Invalidate a session everywhere for as long as any of its blobs could still open: now plus
 * the longest blob lifetime plus the clock-skew allowance (see the header), whatever the expiry
 * of the blob that was presented. `tenant` is the session's (whose quota the entry counts against).
 */
export async function denySession(deps: StateDeps, sid: string, tenant: string | null): Promise<void> {
  const nowMs = deps.now();
  const untilMs = nowMs + longestBlobRetentionMs(deps.config);
  await replayStore(deps, () => deps.stores.replay.deny(sid, untilMs, nowMs, partitionOf(tenant)));
}

/**
 * A continuation must come from a live blob (`previous`: the blob being continued) and carry a
 * counter strictly above any seen for its session.
 */
export async function recordContinuation(
  deps: StateDeps,
  meta: { sid: string; counter: number; expiresAtMs: number; tenant: string | null; previousIat?: number | undefined },
): Promise<void> {
  // Fail closed: a continuation that does not say when its blob was issued is not checked as live.
  if (meta.previousIat === undefined) throw new VeilError('VEIL_INTERNAL', undefined, 'continuation without the continued blob\'s issue time');
  await assertNotDenied(deps, { sid: meta.sid, iat: meta.previousIat });
  const advanced = await replayStore(deps, () => deps.stores.replay.advance(meta.sid, meta.counter, meta.expiresAtMs, deps.now(), partitionOf(meta.tenant)));
  if (!advanced) throw new VeilError('VEIL_SESSION_REPLAY', 'session continuation replayed: continue from the latest session_state');
}

/**
 * The handle a response carries: the blob itself, or a server-side id after storing it. Every
 * blob the service issues leaves through here, so this is also where a forgetting (memory)
 * revocation store hears that the blob's values must stay revoked for its whole lifetime.
 */
export async function outgoingHandle(
  deps: StateDeps,
  meta: { sid: string; expiresAtMs: number; tenant: string | null },
  sessionState: string,
): Promise<{ session_state: string } | { session_id: string }> {
  await keepRevocationsLive(deps, meta.tenant, sessionState);
  const store = deps.stores.sessions;
  if (!serverSide(deps) || store === undefined) return { session_state: sessionState };
  await sessionStore(deps, () => store.put(meta.sid, sessionState, meta.expiresAtMs, deps.now(), partitionOf(meta.tenant)));
  return { session_id: meta.sid };
}

/**
 * Extend the revocations of the values a just-issued blob holds (memory store only; durable
 * stores never forget and have no `extend`). The blob is opened again only when the caller's
 * partitions hold revocations at all, which the store checks before asking for the digests.
 */
async function keepRevocationsLive(deps: StateDeps, tenant: string | null, sessionState: string): Promise<void> {
  const store = deps.stores.revocation;
  if (store.extend === undefined) return;
  const nowMs = deps.now();
  const digests = (): string[] => {
    const session = openSession(deps.reload.keyRingFor(tenant), sessionState, { kinds: SESSION_KINDS, tenant }, Math.floor(nowMs / 1000));
    // Every form a value may have been revoked under (revocation.ts), so none of them expires early.
    const regions = revocationRegions(session.language, deps.config.detector.default_region);
    return [...new Set(session.entries.flatMap((entry) => entryDigests(deps.digestSecret, entry, regions)))];
  };
  await withStore(() => store.extend!(partitionsFor(tenant), digests, nowMs), deps.now);
}

/** Splice the session handle into a body serialized on a worker thread. */
export function withHandle(body: string, handle: SessionHandle): string {
  return `${body.slice(0, -1)}${handleMember(handle)}}`;
}

/** `withHandle` of a body that may be bytes (services/json-text.ts), as parts to send. */
export function withHandleParts(body: JsonText, handle: SessionHandle): JsonText[] {
  return withTrailingFields(body, handleMember(handle));
}

type SessionHandle = { session_state: string } | { session_id: string };

function handleMember(handle: SessionHandle): string {
  const [key, value] = 'session_id' in handle ? ['session_id', handle.session_id] : ['session_state', handle.session_state];
  return `,${JSON.stringify(key)}:${JSON.stringify(value)}`;
}
