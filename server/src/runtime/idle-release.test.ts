// The idle release (runtime/idle-release.ts): a memory-reducing collection once a busy process
// has gone quiet with its heap grown, never while it is busy, once per busy-then-quiet
// transition. Driven by hand (tick), no timers.
import { describe, expect, it } from 'vitest';
import { afterRelease, idleStep, INITIAL_IDLE_STATE, memoryReducingCollection, RELEASE_GAP_INTERVALS, RELEASE_GROWTH_BYTES, startIdleRelease, type IdleState } from './idle-release.js';

const MiB = 1024 * 1024;
const busy = (heapBytes: number) => ({ cpuMicros: 4_000_000, intervalMs: 5000, heapBytes });
const quiet = (heapBytes: number) => ({ cpuMicros: 10_000, intervalMs: 5000, heapBytes });

describe('idleStep', () => {
  it('releases on the first quiet interval after a busy one when the heap grew by the bound', () => {
    let state: IdleState = idleStep(INITIAL_IDLE_STATE, quiet(45 * MiB)).state;
    expect(state.reference).toBe(45 * MiB);
    state = idleStep(state, busy(70 * MiB)).state;
    state = idleStep(state, busy(76 * MiB)).state;
    const decision = idleStep(state, quiet(76 * MiB));
    expect(decision.release).toBe(true);
  });

  it('never releases while the process is busy, however large the heap', () => {
    let state: IdleState = idleStep(INITIAL_IDLE_STATE, quiet(45 * MiB)).state;
    for (let i = 0; i < 5; i += 1) {
      const decision = idleStep(state, busy((80 + i * 20) * MiB));
      expect(decision.release).toBe(false);
      state = decision.state;
    }
  });

  it('does not release a quiet process that was never busy, nor a growth under the bound', () => {
    expect(idleStep(idleStep(INITIAL_IDLE_STATE, quiet(45 * MiB)).state, quiet(45 * MiB + RELEASE_GROWTH_BYTES * 2)).release).toBe(false);
    const state = idleStep(idleStep(INITIAL_IDLE_STATE, quiet(45 * MiB)).state, busy(50 * MiB)).state;
    expect(idleStep(state, quiet(45 * MiB + RELEASE_GROWTH_BYTES - 1)).release).toBe(false);
  });

  it('releases once per transition and at most once per RELEASE_GAP_INTERVALS: the heap after a release is the next reference', () => {
    let state: IdleState = idleStep(INITIAL_IDLE_STATE, quiet(45 * MiB)).state;
    state = idleStep(state, busy(76 * MiB)).state;
    expect(idleStep(state, quiet(76 * MiB)).release).toBe(true);
    state = afterRelease(40 * MiB);
    expect(idleStep(state, quiet(41 * MiB)).release).toBe(false);
    // Busy then quiet again right away: too soon after the last release.
    state = idleStep(state, busy(60 * MiB)).state;
    let decision = idleStep(state, quiet(60 * MiB));
    expect(decision.release).toBe(false);
    state = decision.state;
    for (let i = 2; i < RELEASE_GAP_INTERVALS; i += 1) state = idleStep(state, busy(60 * MiB)).state;
    decision = idleStep(state, quiet(60 * MiB));
    expect(decision.release).toBe(true);
    expect(decision.state.reference).toBe(40 * MiB);
  });

  it('takes the heap at start as the reference when the load comes before any quiet interval', () => {
    let state: IdleState = idleStep(INITIAL_IDLE_STATE, busy(45 * MiB)).state;
    state = idleStep(state, busy(70 * MiB)).state;
    expect(state.reference).toBe(45 * MiB);
    expect(idleStep(state, quiet(70 * MiB)).release).toBe(true);
  });

  it('lets the reference follow the heap down, not up', () => {
    let state: IdleState = idleStep(INITIAL_IDLE_STATE, quiet(45 * MiB)).state;
    state = idleStep(state, quiet(40 * MiB)).state;
    expect(state.reference).toBe(40 * MiB);
    state = idleStep(state, quiet(50 * MiB)).state;
    expect(state.reference).toBe(40 * MiB);
  });
});

describe('startIdleRelease', () => {
  it('runs the collection after busy then quiet, reports the heap before and after, and not again while quiet', () => {
    let cpu = 0;
    let heap = 45 * MiB;
    const collected: number[] = [];
    const reports: [number, number][] = [];
    const release = startIdleRelease({
      intervalMs: 5000,
      cpuMicros: () => cpu,
      heapBytes: () => heap,
      collect: () => {
        collected.push(heap);
        heap = 40 * MiB;
        cpu += 80_000;
      },
      onRelease: (before, after) => reports.push([before, after]),
    })!;
    try {
      release.tick();
      cpu += 4_000_000;
      heap = 76 * MiB;
      release.tick();
      expect(collected).toEqual([]);
      release.tick();
      expect(collected).toEqual([76 * MiB]);
      expect(reports).toEqual([[76 * MiB, 40 * MiB]]);
      release.tick();
      release.tick();
      expect(collected).toHaveLength(1);
    } finally {
      release.stop();
    }
  });

  it('reaches V8 memory-reducing collection in this process (no --expose-gc needed) and leaves no gc global', () => {
    const hadGc = typeof (globalThis as { gc?: unknown }).gc === 'function';
    const collect = memoryReducingCollection();
    expect(collect).toBeTypeOf('function');
    collect!();
    expect(typeof (globalThis as { gc?: unknown }).gc === 'function').toBe(hadGc);
  });
});
