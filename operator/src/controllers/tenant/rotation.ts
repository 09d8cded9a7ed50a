// The three-phase session-key rotation of a tenant (interface.md section 5, decisions.md 11,
// house style rule 10), as a pure state machine with the clock, the key generator and the
// replicas' reports as inputs:
//
//   Idle      one key. A rotation starts when `rotateAt` is due and not yet acted on, or when
//             the current key is older than `rotationPeriod`: add a new key, current unchanged.
//   Staging   wait until every ready server replica reports the ring with the new key loaded;
//             then switch current_kid to the new key.
//   Switching wait until every ready replica reports the switched ring; then start the clock.
//   Retiring  one session TTL later, no blob sealed with the old key can still be valid:
//             remove it and go back to Idle.
//
// A phase advances only on the replicas' reports, never on a timeout; no ready replica means
// nobody has confirmed anything, so it waits (a wrong selector must not rotate blind). Each
// call makes at most one transition. The phase is derived from the ring itself first and the
// status second, so a crash between writing the ring and writing the status is harmless.
import { createHash, randomBytes } from 'node:crypto';
import { parseRotationPeriod, type RotationReason, type TenantKeyStatus, type TenantRotationStatus, type TenantSessionKeys, type TenantStatus } from '@veil/common';
import { rfc3339 } from '../conditions.js';

export interface RingKey {
  readonly kid: string;
  /** 32 bytes as 64 hex characters (or standard base64, when read back from a ring). */
  readonly secret: string;
}

/** A tenant's ring as the key-ring file holds it (without format and tenant id). */
export interface Ring {
  readonly generation: number;
  readonly current_kid: string;
  readonly keys: readonly RingKey[];
}

/** What one ready server replica reports for this tenant (undefined: nothing, or no answer). */
export interface ReplicaState {
  readonly name: string;
  readonly loaded?: string | number;
  /** Why the replica gave no answer (network error, bad status): names only, no values. */
  readonly error?: string;
}

export type ReplicaObservation = { readonly replicas: readonly ReplicaState[] } | { readonly error: string };

export interface RotationInput {
  readonly nowMs: number;
  readonly sessionKeys: TenantSessionKeys | undefined;
  /** The ring as written now; undefined when the tenant has none yet. */
  readonly ring: Ring | undefined;
  readonly status: TenantStatus | undefined;
  readonly sessionTtlMs: number;
  /**
   * The `rotateAt` value already acted on, as recorded beside the ring (written in the same
   * update as the ring, so it cannot lag behind it the way a status patch can).
   */
  readonly handledRotateAt?: string;
  /** Ready replicas' reports; undefined when not fetched (the plan then asks for them). */
  readonly replicas: ReplicaObservation | undefined;
  readonly newKey: () => RingKey;
  /** How often to poll replicas while a phase waits on them. */
  readonly pollIntervalMs?: number;
}

export interface RotationEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface RotationPlan {
  readonly ring: Ring;
  readonly ringChanged: boolean;
  readonly rotation: TenantRotationStatus;
  readonly keys: TenantKeyStatus[];
  /** Set while a phase waits on replicas: what they must report. */
  readonly waiting?: { readonly fingerprint: string; readonly generation: number; readonly message: string };
  /** True when the plan could not decide without the replicas' reports (input.replicas undefined). */
  readonly needsReplicas: boolean;
  readonly requeueAfterMs?: number;
  readonly events: RotationEvent[];
  readonly problems: string[];
}

const DEFAULT_POLL_MS = 5_000;
/** Longest sleep while Idle: the schedule is re-checked at least this often. */
const MAX_IDLE_SLEEP_MS = 3_600_000;

/** Decode a ring secret (64 hex or standard base64) to its 32 bytes. */
export function secretBytes(secret: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(secret) ? Buffer.from(secret, 'hex') : Buffer.from(secret, 'base64');
}

/**
 * The ring's fingerprint exactly as the server computes its key-ring `generation` for
 * /v1/diagnostics (server/src/reload/keyring.ts ringGeneration; a test keeps them equal): 16 hex
 * of SHA-256 over the current kid and each kid with a hash of its key. It reveals no key.
 */
export function ringFingerprint(ring: Pick<Ring, 'current_kid' | 'keys'>): string {
  const hash = createHash('sha256').update(`veil-keyring/v1\ncurrent:${ring.current_kid}\n`);
  for (const key of [...ring.keys].sort((a, b) => (a.kid < b.kid ? -1 : a.kid > b.kid ? 1 : 0))) {
    hash.update(`${key.kid}:${createHash('sha256').update(secretBytes(key.secret)).digest('hex')}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/** A fresh key: kid from the time and randomness (sortable, unique), 32 random bytes. */
export function generateKey(nowMs: number): RingKey {
  const stamp = new Date(nowMs).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z').toLowerCase();
  return { kid: `k${stamp}-${randomBytes(3).toString('hex')}`, secret: randomBytes(32).toString('hex') };
}

/** A generated key whose kid the ring does not hold yet (a collision would merge two keys). */
function freshKey(newKey: () => RingKey, taken: ReadonlySet<string>): RingKey {
  for (let attempt = 0; attempt < 8; attempt += 1) {
    const key = newKey();
    if (!taken.has(key.kid)) return key;
  }
  throw new Error('rotation: the key generator keeps returning kids the ring already holds');
}

function parseTime(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

function confirmation(input: RotationInput, ring: Ring): { confirmed: boolean; message: string } {
  const fingerprint = ringFingerprint(ring);
  const target = `key-ring generation ${ring.generation} (${fingerprint})`;
  const observation = input.replicas;
  if (observation === undefined) return { confirmed: false, message: `waiting for server replicas to report ${target}` };
  if ('error' in observation) return { confirmed: false, message: `waiting: server replicas could not be listed (${observation.error})` };
  if (observation.replicas.length === 0) return { confirmed: false, message: `waiting: no ready server replica found to confirm ${target}` };
  const pending = observation.replicas.filter((replica) => replica.loaded !== fingerprint && replica.loaded !== ring.generation);
  if (pending.length === 0) return { confirmed: true, message: `all ${observation.replicas.length} ready server replicas report ${target}` };
  const names = pending.map((replica) => (replica.error === undefined ? replica.name : `${replica.name}: ${replica.error}`)).join(', ');
  return { confirmed: false, message: `waiting for ${pending.length} of ${observation.replicas.length} ready server replicas to load ${target}: ${names}` };
}

export function planRotation(input: RotationInput): RotationPlan {
  const now = input.nowMs;
  const poll = input.pollIntervalMs ?? DEFAULT_POLL_MS;
  const previous: TenantRotationStatus = input.status?.rotation ?? { phase: 'Idle' };
  const createdOf = (kid: string): string => input.status?.keys?.find((key) => key.kid === kid)?.created ?? rfc3339(now);
  const problems: string[] = [];
  const events: RotationEvent[] = [];
  const periodText = input.sessionKeys?.rotationPeriod;
  const periodSeconds = periodText === undefined ? undefined : parseRotationPeriod(periodText);
  if (periodText !== undefined && periodSeconds === undefined) problems.push('spec.sessionKeys.rotationPeriod: must be a duration of hours, minutes and seconds, at least 1h');
  const rotateAtText = input.sessionKeys?.rotateAt;
  const rotateAtMs = parseTime(rotateAtText);
  if (rotateAtText !== undefined && rotateAtMs === undefined) problems.push('spec.sessionKeys.rotateAt: must be an RFC 3339 date-time');
  // Generations only grow, even if the ring was deleted: a replica still holding an old ring
  // must never appear to have loaded a new one.
  const floor = Math.max(input.ring?.generation ?? 0, input.status?.keyRingGeneration ?? 0);

  const finish = (ring: Ring, rotation: TenantRotationStatus, extra: { waiting?: RotationPlan['waiting']; needsReplicas?: boolean; requeueAfterMs?: number }): RotationPlan => {
    const staged = rotation.phase === 'Staging' ? rotation.newKid : undefined;
    const keys = ring.keys.map((key): TenantKeyStatus => ({
      kid: key.kid,
      created: createdOf(key.kid),
      phase: key.kid === ring.current_kid ? 'Current' : key.kid === staged ? 'Staged' : 'Retiring',
    }));
    const ringChanged = input.ring === undefined || JSON.stringify(input.ring) !== JSON.stringify(ring);
    return { ring, ringChanged, rotation, keys, needsReplicas: extra.needsReplicas ?? false, events, problems, ...(extra.waiting === undefined ? {} : { waiting: extra.waiting }), ...(extra.requeueAfterMs === undefined ? {} : { requeueAfterMs: extra.requeueAfterMs }) };
  };

  const lastHandled = input.handledRotateAt ?? previous.lastRotateAt;
  const idleHistory = {
    ...(lastHandled === undefined ? {} : { lastRotateAt: lastHandled }),
    ...(previous.lastCompletedAt === undefined ? {} : { lastCompletedAt: previous.lastCompletedAt }),
  };

  // No ring yet: create one. A pending rotateAt is satisfied by a brand-new key.
  if (input.ring === undefined || input.ring.keys.length === 0) {
    const key = input.newKey();
    const ring: Ring = { generation: floor + 1, current_kid: key.kid, keys: [key] };
    events.push({ type: 'Normal', reason: 'KeyRingCreated', message: `created key ring with key ${key.kid}` });
    const satisfied = rotateAtMs !== undefined && rotateAtMs <= now ? { lastRotateAt: rotateAtText! } : {};
    return finish(ring, { phase: 'Idle', reason: 'Initial', ...idleHistory, ...satisfied, lastCompletedAt: rfc3339(now) }, { requeueAfterMs: 0 });
  }

  const ring = input.ring;
  const kids = ring.keys.map((key) => key.kid);
  const current = ring.current_kid;

  if (kids.length === 1) {
    // Idle. Decide whether a rotation is due.
    const requested = rotateAtMs !== undefined && rotateAtMs <= now && rotateAtText !== lastHandled;
    const createdMs = parseTime(createdOf(current)) ?? now;
    const dueMs = periodSeconds === undefined ? undefined : createdMs + periodSeconds * 1000;
    const scheduled = dueMs !== undefined && dueMs <= now;
    if (requested || scheduled) {
      const key = freshKey(input.newKey, new Set(kids));
      const next: Ring = { generation: floor + 1, current_kid: current, keys: [...ring.keys, key] };
      const reason: RotationReason = requested ? 'Requested' : 'Scheduled';
      events.push({ type: 'Normal', reason: 'RotationStarted', message: `rotation ${reason.toLowerCase()}: staging key ${key.kid} beside ${current}` });
      return finish(
        next,
        {
          phase: 'Staging',
          reason,
          newKid: key.kid,
          oldKid: current,
          startedAt: rfc3339(now),
          phaseStartedAt: rfc3339(now),
          targetGeneration: next.generation,
          ...(requested ? { lastRotateAt: rotateAtText! } : lastHandled === undefined ? {} : { lastRotateAt: lastHandled }),
          ...(previous.lastCompletedAt === undefined ? {} : { lastCompletedAt: previous.lastCompletedAt }),
        },
        { requeueAfterMs: 0 },
      );
    }
    const wakeups = [dueMs, rotateAtMs !== undefined && rotateAtMs > now ? rotateAtMs : undefined].filter((ms): ms is number => ms !== undefined).map((ms) => ms - now);
    const sleep = Math.min(MAX_IDLE_SLEEP_MS, ...wakeups);
    return finish(ring, { phase: 'Idle', ...(previous.reason === undefined ? {} : { reason: previous.reason }), ...idleHistory }, { requeueAfterMs: Math.max(0, sleep) });
  }

  // Several keys: a rotation is in flight. The ring itself says which key is which (a staged
  // key is always appended, so the first key is the old one and the last the new one); the
  // status may be stale (its patch can fail after the ring was written) and is only trusted to
  // tell Switching from Retiring, where a stale reading merely waits longer.
  const oldKid = kids[0]!;
  const newKid = kids[kids.length - 1]!;
  const base = {
    ...(previous.reason === undefined ? {} : { reason: previous.reason }),
    newKid,
    oldKid,
    startedAt: previous.startedAt ?? rfc3339(now),
    ...idleHistory,
  };
  let phase: 'Staging' | 'Switching' | 'Retiring';
  if (kids.length > 2 || (current !== oldKid && current !== newKid)) phase = 'Retiring'; // not a state we write: retire every non-current key
  else if (current === oldKid) phase = 'Staging';
  else phase = previous.phase === 'Retiring' && previous.newKid === newKid ? 'Retiring' : 'Switching';
  const phaseStartedAt = previous.phase === phase && previous.phaseStartedAt !== undefined ? previous.phaseStartedAt : rfc3339(now);

  if (phase === 'Staging' || phase === 'Switching') {
    const check = confirmation(input, ring);
    const waiting = { fingerprint: ringFingerprint(ring), generation: ring.generation, message: check.message };
    if (!check.confirmed) {
      return finish(ring, { ...base, phase, phaseStartedAt, targetGeneration: ring.generation }, { waiting, needsReplicas: input.replicas === undefined, requeueAfterMs: poll });
    }
    if (phase === 'Staging') {
      const next: Ring = { generation: floor + 1, current_kid: newKid, keys: ring.keys };
      events.push({ type: 'Normal', reason: 'RotationSwitching', message: `every ready replica holds ${newKid}; switching current key from ${oldKid}` });
      return finish(next, { ...base, phase: 'Switching', phaseStartedAt: rfc3339(now), targetGeneration: next.generation }, { requeueAfterMs: 0 });
    }
    const retireAfter = rfc3339(now + input.sessionTtlMs);
    events.push({ type: 'Normal', reason: 'RotationRetiring', message: `every ready replica seals with ${newKid}; ${oldKid} is removed after one session TTL` });
    return finish(ring, { ...base, phase: 'Retiring', phaseStartedAt: rfc3339(now), targetGeneration: ring.generation, retireAfter }, { requeueAfterMs: input.sessionTtlMs });
  }

  // Retiring.
  const retireAfterMs = parseTime(previous.phase === 'Retiring' ? previous.retireAfter : undefined) ?? now + input.sessionTtlMs;
  if (now < retireAfterMs) {
    return finish(ring, { ...base, phase: 'Retiring', phaseStartedAt, targetGeneration: ring.generation, retireAfter: rfc3339(retireAfterMs) }, { requeueAfterMs: retireAfterMs - now });
  }
  const kept = ring.keys.filter((key) => key.kid === current);
  const next: Ring = { generation: floor + 1, current_kid: current, keys: kept };
  const removed = kids.filter((kid) => kid !== current);
  events.push({ type: 'Normal', reason: 'RotationCompleted', message: `removed ${removed.join(', ')}; ${current} is the only key` });
  return finish(
    next,
    {
      phase: 'Idle',
      ...(previous.reason === undefined ? {} : { reason: previous.reason }),
      ...(lastHandled === undefined ? {} : { lastRotateAt: lastHandled }),
      lastCompletedAt: rfc3339(now),
    },
    { requeueAfterMs: 0 },
  );
}
