// Lease leader election against the simulator with a manual clock: one leader at a time, the
// lease taken over only after it expires (judged by the observer's own clock), a leader that
// cannot renew steps down within the renew deadline, and a released lease is taken at once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiSimulator } from '../../test/sim/server.js';
import { FakeClock } from './clock.js';
import { LeaderElector } from './leader.js';
import { loadKubeConfig, RealKubeClient } from './real-client.js';
import type { Lease } from './types.js';

let simulator: ApiSimulator;
let client: RealKubeClient;

beforeEach(async () => {
  simulator = await ApiSimulator.start({ namespaces: ['ops'] });
  client = new RealKubeClient(loadKubeConfig({ kubeconfigYaml: simulator.kubeconfig('ops') }));
});

afterEach(async () => {
  await simulator.stop();
});

/** Each candidate has its own clock, as separate operator Pods do. */
function candidate(identity: string, log: string[], clock = new FakeClock()): LeaderElector & { clock: FakeClock } {
  const elector = new LeaderElector({
    client,
    namespace: 'ops',
    name: 'veil-operator',
    identity,
    clock,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    onStartedLeading: () => log.push(`${identity} started`),
    onStoppedLeading: () => {
      log.push(`${identity} stopped`);
    },
  });
  // Rounds are driven by hand (round()); the elector's own timer fires only when its clock is
  // advanced, and its rounds queue behind the manual ones.
  elector.start();
  return Object.assign(elector, { clock });
}

describe('LeaderElector', () => {
  it('elects one leader; the other takes over only after the lease expires on its own clock', async () => {
    const log: string[] = [];
    const a = candidate('a', log);
    const b = candidate('b', log);
    await a.round();
    await b.round();
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    expect(b.holder).toBe('a');

    // a stops renewing (partitioned). b must wait a full lease duration from when it first saw
    // the record, not from the renewTime written in it.
    b.clock.advance(14_000);
    await b.round();
    expect(b.isLeader).toBe(false);
    b.clock.advance(1_500);
    await b.round();
    expect(b.isLeader).toBe(true);
    const lease = simulator.peek<Lease>('Lease', 'ops', 'veil-operator');
    expect(lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });

    // a comes back: its renew fails (held by b), and it steps down.
    await a.round();
    expect(a.isLeader).toBe(false);
    expect(log).toEqual(['a started', 'b started', 'a stopped']);
  });

  it('steps down when renewals keep failing past the renew deadline', async () => {
    const log: string[] = [];
    const a = candidate('a', log);
    await a.round();
    expect(a.isLeader).toBe(true);
    simulator.failNext(100, { status: 500, kinds: ['Lease'] });
    a.clock.advance(2_000);
    await a.round();
    expect(a.isLeader).toBe(true);
    a.clock.advance(8_000);
    await a.round();
    expect(a.isLeader).toBe(false);
    expect(log).toEqual(['a started', 'a stopped']);
  });

  it('a racing write on the same version loses with 409 and does not lead', async () => {
    const log: string[] = [];
    const a = candidate('a', log);
    const b = candidate('b', log);
    await Promise.all([a.round(), b.round()]);
    expect([a.isLeader, b.isLeader].filter(Boolean)).toHaveLength(1);
  });

  it('deletes its lease on stop so a successor takes it at once and nothing is left behind', async () => {
    const log: string[] = [];
    const a = candidate('a', log);
    const b = candidate('b', log);
    await a.round();
    await b.round();
    await a.stop();
    expect(simulator.peek<Lease>('Lease', 'ops', 'veil-operator')).toBeUndefined();
    await b.round();
    expect(b.isLeader).toBe(true);
    expect(log).toEqual(['a started', 'a stopped', 'b started']);
    await b.stop();
    expect(simulator.peek<Lease>('Lease', 'ops', 'veil-operator')).toBeUndefined();
  });

  it('leaves a Lease that someone else holds by then', async () => {
    const log: string[] = [];
    const a = candidate('a', log);
    await a.round();
    const lease = simulator.peek<Lease>('Lease', 'ops', 'veil-operator')!;
    simulator.seed('Lease', { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await a.stop();
    expect(simulator.peek<Lease>('Lease', 'ops', 'veil-operator')?.spec?.holderIdentity).toBe('intruder');
  });
});
