// What `veil serve` relaunches itself for: a heap larger than the memory budget allows (lowered,
// never raised), and not again once relaunched or when the heap was set explicitly.
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { TEST_SECRET } from '../../test/support/harness.js';
import { launchPlan, LAUNCHED_ENV, openFileLimits } from './launcher.js';

const configWith = (server: Record<string, unknown>) => loadConfig({ env: { VEIL_SESSION_SECRET: TEST_SECRET }, overrides: { server } }).config;
const currentHeapMb = getHeapStatistics().heap_size_limit / (1024 * 1024);

describe('launchPlan', () => {
  it('lowers the heap to half of a budget smaller than the current heap', () => {
    const budget = Math.max(256, Math.floor(currentHeapMb / 2));
    const plan = launchPlan(configWith({ memory_budget_mb: budget }), {}, []);
    expect(plan?.execArgv).toEqual([`--max-old-space-size=${Math.max(256, Math.floor(budget / 2))}`]);
  });

  it('never raises the heap, never relaunches twice, and leaves an explicit heap flag alone', () => {
    expect(launchPlan(configWith({ memory_budget_mb: 1_048_576 }), {}, [])?.execArgv ?? []).toEqual([]);
    expect(launchPlan(configWith({ memory_budget_mb: 256 }), { [LAUNCHED_ENV]: '1' }, [])).toBeUndefined();
    expect(launchPlan(configWith({ memory_budget_mb: 256 }), { NODE_OPTIONS: '--max-old-space-size=100' }, [])?.execArgv ?? []).toEqual([]);
    expect(launchPlan(configWith({ memory_budget_mb: 256 }), {}, ['--max-old-space-size=100'])?.execArgv ?? []).toEqual([]);
  });

  it('reads the open-file limits on Linux', () => {
    const limits = openFileLimits();
    if (process.platform !== 'linux') return;
    expect(limits!.soft).toBeGreaterThan(0);
    expect(limits!.hard).toBeGreaterThanOrEqual(limits!.soft);
  });
});
