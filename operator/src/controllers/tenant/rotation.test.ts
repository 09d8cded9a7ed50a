// The rotation state machine, table-tested with an injected clock and key generator: triggers,
// each phase's wait and advance, the reports that do and do not count, crash recovery from a
// ring written without its status, and a full rotation driven step by step. Also keeps the
// ring fingerprint equal to the generation the server reports.
import { describe, expect, it } from 'vitest';
import type { TenantStatus } from '@veil/common';
import { KeyRing } from '../../../../server/src/domain/seal/keyring.js';
import { ringGeneration } from '../../../../server/src/reload/keyring.js';
import { planRotation, ringFingerprint, type ReplicaObservation, type Ring, type RingKey, type RotationInput } from './rotation.js';

const T0 = Date.UTC(2025, 0, 1);
const HOUR = 3_600_000;
const TTL = HOUR;

function keyFactory(first = 2): () => RingKey {
  let next = first - 1;
  return () => {
    next += 1;
    return { kid: `k${next}`, secret: String(next % 10).repeat(64) };
  };
}

const K1: RingKey = { kid: 'k1', secret: '1'.repeat(64) };
const K2: RingKey = { kid: 'k2', secret: '2'.repeat(64) };
const idleRing: Ring = { generation: 1, current_kid: 'k1', keys: [K1] };
const stagedRing: Ring = { generation: 2, current_kid: 'k1', keys: [K1, K2] };
const switchedRing: Ring = { generation: 3, current_kid: 'k2', keys: [K1, K2] };

const keysStatus = (created: string): NonNullable<TenantStatus['keys']> => [{ kid: 'k1', created, phase: 'Current' }];

function reports(ring: Ring, ...loaded: (string | number | undefined)[]): ReplicaObservation {
  return { replicas: loaded.map((value, index) => ({ name: `veil-${index}`, ...(value === undefined ? { error: 'diagnostics unreachable' } : { loaded: value === 'match' ? ringFingerprint(ring) : value }) })) };
}

function input(overrides: Partial<RotationInput>): RotationInput {
  return { nowMs: T0, sessionKeys: undefined, ring: idleRing, status: undefined, sessionTtlMs: TTL, replicas: undefined, newKey: keyFactory(), ...overrides };
}

describe('planRotation: triggers from Idle', () => {
  const created = new Date(T0 - 2 * HOUR).toISOString();
  const cases: { name: string; input: Partial<RotationInput>; phase: string; reason?: string; requeueAfterMs?: number }[] = [
    { name: 'no trigger: stays Idle and sleeps at most an hour', input: {}, phase: 'Idle', requeueAfterMs: HOUR },
    { name: 'rotateAt in the past, never acted on: Requested', input: { sessionKeys: { rotateAt: '2024-12-31T23:00:00Z' } }, phase: 'Staging', reason: 'Requested' },
    {
      name: 'rotateAt already acted on: Idle',
      input: { sessionKeys: { rotateAt: '2024-12-31T23:00:00Z' }, status: { rotation: { phase: 'Idle', lastRotateAt: '2024-12-31T23:00:00Z' } } },
      phase: 'Idle',
    },
    { name: 'rotateAt in the future: Idle, wakes up then', input: { sessionKeys: { rotateAt: '2025-01-01T00:10:00Z' } }, phase: 'Idle', requeueAfterMs: 600_000 },
    { name: 'rotationPeriod elapsed since the key was created: Scheduled', input: { sessionKeys: { rotationPeriod: '1h' }, status: { keys: keysStatus(created) } }, phase: 'Staging', reason: 'Scheduled' },
    { name: 'rotationPeriod not yet elapsed: Idle until due', input: { sessionKeys: { rotationPeriod: '3h' }, status: { keys: keysStatus(created) } }, phase: 'Idle', requeueAfterMs: HOUR },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const plan = planRotation(input(testCase.input));
      expect(plan.rotation.phase).toBe(testCase.phase);
      if (testCase.reason !== undefined) expect(plan.rotation.reason).toBe(testCase.reason);
      if (testCase.requeueAfterMs !== undefined) expect(plan.requeueAfterMs).toBe(testCase.requeueAfterMs);
      if (testCase.phase === 'Staging') {
        expect(plan.ring).toEqual({ generation: 2, current_kid: 'k1', keys: [K1, K2] });
        expect(plan.ringChanged).toBe(true);
        expect(plan.keys.map((key) => key.phase)).toEqual(['Current', 'Staged']);
      } else {
        expect(plan.ringChanged).toBe(false);
      }
    });
  }

  it('creates the first ring, which satisfies a pending request', () => {
    const plan = planRotation(input({ ring: undefined, sessionKeys: { rotateAt: '2024-12-31T00:00:00Z' }, newKey: keyFactory(1) }));
    expect(plan.ring).toEqual({ generation: 1, current_kid: 'k1', keys: [{ kid: 'k1', secret: '1'.repeat(64) }] });
    expect(plan.rotation).toMatchObject({ phase: 'Idle', reason: 'Initial', lastRotateAt: '2024-12-31T00:00:00Z' });
    expect(plan.events.map((event) => event.reason)).toEqual(['KeyRingCreated']);
  });

  it('never reuses a generation, even when the ring was deleted', () => {
    const plan = planRotation(input({ ring: undefined, status: { keyRingGeneration: 41 } }));
    expect(plan.ring.generation).toBe(42);
  });

  it('reports a bad rotationPeriod and ignores it', () => {
    const plan = planRotation(input({ sessionKeys: { rotationPeriod: '5m' } }));
    expect(plan.rotation.phase).toBe('Idle');
    expect(plan.problems).toEqual(['spec.sessionKeys.rotationPeriod: must be a duration of hours, minutes and seconds, at least 1h']);
  });
});

describe('planRotation: waiting on replicas', () => {
  const staging: TenantStatus = { rotation: { phase: 'Staging', oldKid: 'k1', newKid: 'k2', startedAt: '2025-01-01T00:00:00Z' } };
  const switching: TenantStatus = { rotation: { phase: 'Switching', oldKid: 'k1', newKid: 'k2', startedAt: '2025-01-01T00:00:00Z' } };
  const cases: { name: string; ring: Ring; status: TenantStatus; replicas: ReplicaObservation | undefined; phase: string; advanced: boolean; message?: RegExp }[] = [
    { name: 'Staging without reports asks for them', ring: stagedRing, status: staging, replicas: undefined, phase: 'Staging', advanced: false },
    { name: 'Staging, all replicas report the ring: switch', ring: stagedRing, status: staging, replicas: reports(stagedRing, 'match', 'match', 'match'), phase: 'Switching', advanced: true },
    {
      name: 'Staging, one replica lags: wait',
      ring: stagedRing,
      status: staging,
      replicas: reports(stagedRing, 'match', 'aaaaaaaaaaaaaaaa', 'match'),
      phase: 'Staging',
      advanced: false,
      message: /waiting for 1 of 3 ready server replicas.*veil-1/,
    },
    { name: 'Staging, a replica does not answer: wait (never a timeout)', ring: stagedRing, status: staging, replicas: reports(stagedRing, 'match', undefined), phase: 'Staging', advanced: false, message: /veil-1: diagnostics unreachable/ },
    { name: 'Staging, no ready replica: wait (fail closed)', ring: stagedRing, status: staging, replicas: { replicas: [] }, phase: 'Staging', advanced: false, message: /no ready server replica/ },
    { name: 'Staging, replicas cannot be listed: wait', ring: stagedRing, status: staging, replicas: { error: 'cannot list Pods' }, phase: 'Staging', advanced: false, message: /could not be listed/ },
    { name: 'Staging, a numeric generation report counts too', ring: stagedRing, status: staging, replicas: reports(stagedRing, 2, 'match'), phase: 'Switching', advanced: true },
    { name: 'Staging, an older generation does not count', ring: stagedRing, status: staging, replicas: reports(stagedRing, 1, 'match'), phase: 'Staging', advanced: false },
    { name: 'Switching, all report: Retiring', ring: switchedRing, status: switching, replicas: reports(switchedRing, 'match', 'match'), phase: 'Retiring', advanced: true },
    { name: 'Switching, the staged ring is not enough', ring: switchedRing, status: switching, replicas: reports(switchedRing, ringFingerprint(stagedRing), 'match'), phase: 'Switching', advanced: false },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const plan = planRotation(input({ ring: testCase.ring, status: testCase.status, replicas: testCase.replicas }));
      expect(plan.rotation.phase).toBe(testCase.phase);
      expect(plan.needsReplicas).toBe(testCase.replicas === undefined);
      if (!testCase.advanced) {
        expect(plan.ringChanged).toBe(false);
        expect(plan.requeueAfterMs).toBe(5_000);
        expect(plan.waiting?.fingerprint).toBe(ringFingerprint(testCase.ring));
      }
      if (testCase.message !== undefined) expect(plan.waiting?.message).toMatch(testCase.message);
    });
  }

  it('Staging -> Switching flips current_kid and bumps the generation, keys unchanged', () => {
    const plan = planRotation(input({ ring: stagedRing, status: staging, replicas: reports(stagedRing, 'match') }));
    expect(plan.ring).toEqual({ generation: 3, current_kid: 'k2', keys: [K1, K2] });
    expect(plan.keys.map((key) => `${key.kid}:${key.phase}`)).toEqual(['k1:Retiring', 'k2:Current']);
  });

  it('Switching -> Retiring keeps the ring and sets retireAfter one TTL ahead', () => {
    const plan = planRotation(input({ ring: switchedRing, status: switching, replicas: reports(switchedRing, 'match') }));
    expect(plan.ringChanged).toBe(false);
    expect(plan.rotation.retireAfter).toBe('2025-01-01T01:00:00Z');
    expect(plan.requeueAfterMs).toBe(TTL);
  });
});

describe('planRotation: Retiring', () => {
  const retiring: TenantStatus = { rotation: { phase: 'Retiring', oldKid: 'k1', newKid: 'k2', retireAfter: '2025-01-01T01:00:00Z', lastRotateAt: 'x' } };
  it('keeps the old key until retireAfter, without asking replicas', () => {
    const plan = planRotation(input({ ring: switchedRing, status: retiring, nowMs: T0 + 30 * 60_000 }));
    expect(plan.rotation.phase).toBe('Retiring');
    expect(plan.needsReplicas).toBe(false);
    expect(plan.requeueAfterMs).toBe(30 * 60_000);
  });
  it('removes the old key after retireAfter and returns to Idle', () => {
    const plan = planRotation(input({ ring: switchedRing, status: retiring, nowMs: T0 + HOUR }));
    expect(plan.ring).toEqual({ generation: 4, current_kid: 'k2', keys: [K2] });
    expect(plan.rotation).toMatchObject({ phase: 'Idle', lastRotateAt: 'x', lastCompletedAt: '2025-01-01T01:00:00Z' });
    expect(plan.events.map((event) => event.reason)).toEqual(['RotationCompleted']);
  });
});

describe('planRotation: recovery from a ring written without its status', () => {
  it('two keys but an Idle status: Staging with current as the old key', () => {
    const plan = planRotation(input({ ring: stagedRing, status: { rotation: { phase: 'Idle' } } }));
    expect(plan.rotation).toMatchObject({ phase: 'Staging', oldKid: 'k1', newKid: 'k2' });
  });
  it('switched ring but an Idle status: Switching, never a switch back to the old key', () => {
    const plan = planRotation(input({ ring: switchedRing, status: { rotation: { phase: 'Idle' } }, replicas: reports(switchedRing, 'match') }));
    expect(plan.rotation).toMatchObject({ phase: 'Retiring', oldKid: 'k1', newKid: 'k2' });
    expect(plan.ring.current_kid).toBe('k2');
  });
  it('a request recorded beside the ring is not acted on twice, whatever the status says', () => {
    const plan = planRotation(input({ sessionKeys: { rotateAt: '2024-12-31T23:00:00Z' }, handledRotateAt: '2024-12-31T23:00:00Z', status: { rotation: { phase: 'Idle' } } }));
    expect(plan.rotation).toMatchObject({ phase: 'Idle', lastRotateAt: '2024-12-31T23:00:00Z' });
    expect(plan.ringChanged).toBe(false);
  });
  it('switched ring but a Staging status: Switching', () => {
    const plan = planRotation(input({ ring: switchedRing, status: { rotation: { phase: 'Staging', oldKid: 'k1', newKid: 'k2' } } }));
    expect(plan.rotation.phase).toBe('Switching');
  });
  it('one key but a Retiring status: the removal was written, Idle', () => {
    const plan = planRotation(input({ ring: { generation: 4, current_kid: 'k2', keys: [K2] }, status: { rotation: { phase: 'Retiring', oldKid: 'k1', newKid: 'k2' } } }));
    expect(plan.rotation.phase).toBe('Idle');
    expect(plan.ringChanged).toBe(false);
  });
  it('a Retiring status without retireAfter waits a full TTL from now', () => {
    const plan = planRotation(input({ ring: switchedRing, status: { rotation: { phase: 'Retiring', oldKid: 'k1', newKid: 'k2' } } }));
    expect(plan.rotation.retireAfter).toBe('2025-01-01T01:00:00Z');
  });
});

describe('planRotation: a whole rotation, step by step', () => {
  it('goes Idle -> Staging -> Switching -> Retiring -> Idle, each step only on the reports', () => {
    let now = T0;
    let ring: Ring = idleRing;
    let status: TenantStatus = { keys: keysStatus('2025-01-01T00:00:00Z'), rotation: { phase: 'Idle' } };
    const newKey = keyFactory(1);
    const step = (replicas?: ReplicaObservation): ReturnType<typeof planRotation> => {
      const plan = planRotation({ nowMs: now, sessionKeys: { rotateAt: '2025-01-01T00:00:00Z' }, ring, status, sessionTtlMs: TTL, replicas, newKey });
      ring = plan.ring;
      status = { keys: plan.keys, rotation: plan.rotation, keyRingGeneration: plan.ring.generation, currentKid: plan.ring.current_kid };
      return plan;
    };
    expect(step().rotation.phase).toBe('Staging');
    const staged = ring;
    expect(step(reports(staged, 'match', ringFingerprint(idleRing))).rotation.phase).toBe('Staging');
    expect(step(reports(staged, 'match', 'match')).rotation.phase).toBe('Switching');
    const switched = ring;
    expect(switched.current_kid).toBe('k2');
    now += 60_000;
    expect(step(reports(switched, 'match', 'match')).rotation.phase).toBe('Retiring');
    now += TTL - 1;
    expect(step().rotation.phase).toBe('Retiring');
    now += 1;
    const done = step();
    expect(done.rotation.phase).toBe('Idle');
    expect(ring).toEqual({ generation: 4, current_kid: 'k2', keys: [{ kid: 'k2', secret: '2'.repeat(64) }] });
    // The same rotateAt does not rotate again.
    expect(step().rotation.phase).toBe('Idle');
    expect(ring.generation).toBe(4);
  });
});

describe('planRotation: key generation', () => {
  it('never stages a kid the ring already holds', () => {
    const plan = planRotation(input({ sessionKeys: { rotateAt: '2024-12-31T00:00:00Z' }, newKey: keyFactory(1) }));
    expect(plan.ring.keys.map((key) => key.kid)).toEqual(['k1', 'k2']);
  });
});

describe('ringFingerprint', () => {
  it('equals the generation the server reports for the same ring', () => {
    for (const ring of [idleRing, stagedRing, switchedRing, { generation: 9, current_kid: 'b', keys: [{ kid: 'b', secret: Buffer.alloc(32, 7).toString('base64') }, { kid: 'a', secret: 'f'.repeat(64) }] }]) {
      const serverRing = new KeyRing(ring.current_kid, ring.keys.map((key) => ({ kid: key.kid, key: /^[0-9a-f]{64}$/i.test(key.secret) ? Buffer.from(key.secret, 'hex') : Buffer.from(key.secret, 'base64') })));
      expect(ringFingerprint(ring)).toBe(ringGeneration(serverRing));
    }
  });
});
