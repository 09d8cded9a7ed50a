// The one place Redis key names are built (BullMQ's queue-keys discipline): every store asks this
// builder, nothing concatenates key strings elsewhere.
//
// Layout (prefix defaults to "veil"; `v1` is the layout version, bumped on any incompatible change):
//
//   <prefix>:v1:replay:{<sessionId>}:counter   hash c=counter e=expiresAtMs      highest continuation counter
//   <prefix>:v1:replay:{<sessionId>}:deny      string "<expiresAtMs>"            sealed-session deny list
//   <prefix>:v1:rev:{<partition>}:digests      set of digest strings             revocations of one partition
//                                                                                 (tenant id, or "*" = global)
//   <prefix>:v1:rev:keycheck                   string                            the digest key's check value
//   <prefix>:v1:idem:{<storage key>}           hash f=fingerprint d=0|1 (done)   one idempotency key of one
//                                                    t=claimedAtMs e=expiresAtMs   (tenant, identity): shared.ts
//                                                    r=response JSON (done, kept)  idempotencyStorageKey
//   <prefix>:v1:idem-owner:{<owner>}           sorted set: storage key ->       one owner's live keys, for
//                                                    its expiresAtMs             its quota (tenant partition)
//   <prefix>:v1:session:{<sessionId>}          string "<expiresAtMs>:<payload>"  server-side session
//
// Caller-supplied parts are percent-encoded (encodeURIComponent), so a tenant id or idempotency
// key can never contain ':' '{' '}' and forge another key or hash tag. The `{...}` hash tag puts
// everything about one session, partition or key in one Redis Cluster slot, which keeps every
// Lua script single-slot (each script touches keys of one tag only).
//
// Expiry is logical: each record carries its own expiresAtMs, compared with the caller's clock
// (the injectable `nowMs`), so all replicas and tests agree on what is live. Redis's own TTL is
// only garbage collection: it is set relative (PEXPIRE remaining + PHYSICAL_TTL_SLACK_MS) so a
// skew between a replica's clock and the Redis host's clock can never delete a live record early.
export const LAYOUT_VERSION = 'v1';
export const PHYSICAL_TTL_SLACK_MS = 60_000;

const PREFIX_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

export interface RedisKeys {
  readonly prefix: string;
  replayCounter(sessionId: string): string;
  replayDeny(sessionId: string): string;
  revocations(partition: string): string;
  revocationKeyCheck(): string;
  idempotency(key: string): string;
  idempotencyOwner(owner: string): string;
  session(sessionId: string): string;
}

export function redisKeys(prefix = 'veil'): RedisKeys {
  if (!PREFIX_PATTERN.test(prefix)) throw new RangeError('Redis key prefix must be 1 to 64 of [A-Za-z0-9_.-]');
  const base = `${prefix}:${LAYOUT_VERSION}`;
  const tag = (part: string): string => `{${encodeURIComponent(part)}}`;
  return {
    prefix,
    replayCounter: (sessionId) => `${base}:replay:${tag(sessionId)}:counter`,
    replayDeny: (sessionId) => `${base}:replay:${tag(sessionId)}:deny`,
    revocations: (partition) => `${base}:rev:${tag(partition)}:digests`,
    revocationKeyCheck: () => `${base}:rev:keycheck`,
    idempotency: (key) => `${base}:idem:${tag(key)}`,
    idempotencyOwner: (owner) => `${base}:idem-owner:${tag(owner)}`,
    session: (sessionId) => `${base}:session:${tag(sessionId)}`,
  };
}

/** Values stored as "<expiresAtMs>:<rest>": split them; undefined when malformed. */
export function splitExpiring(value: string): { readonly expiresAtMs: number; readonly rest: string } | undefined {
  const colon = value.indexOf(':');
  if (colon <= 0) return undefined;
  const expiresAtMs = Number(value.slice(0, colon));
  if (!Number.isFinite(expiresAtMs)) return undefined;
  return { expiresAtMs, rest: value.slice(colon + 1) };
}
