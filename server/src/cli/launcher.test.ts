// What `veil serve` relaunches itself for: a heap larger than the memory budget allows (lowered,
// never raised), and not again once relaunched or when the heap was set explicitly; the
// relaunched server gets the malloc arena cap unless one is set, and a bounded young generation
// unless one is set.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { TEST_SECRET } from '../../test/support/harness.js';
import { tempDir } from '../audit/testing.js';
import { launchPlan, LAUNCHED_ENV, MAIN_THREAD_COMPILE, openFileLimits, relaunch, SEMI_SPACE_MB } from './launcher.js';

const configWith = (server: Record<string, unknown>) => loadConfig({ env: { VEIL_SESSION_SECRET: TEST_SECRET }, overrides: { server } }).config;
const currentHeapMb = getHeapStatistics().heap_size_limit / (1024 * 1024);

describe('launchPlan', () => {
  it('lowers the heap to half of a budget smaller than the current heap', () => {
    const budget = Math.max(256, Math.floor(currentHeapMb / 2));
    const plan = launchPlan(configWith({ memory_budget_mb: budget }), {}, []);
    expect(plan?.execArgv).toEqual([`--max-old-space-size=${Math.max(256, Math.floor(budget / 2))}`, `--max-semi-space-size=${SEMI_SPACE_MB}`, MAIN_THREAD_COMPILE]);
  });

  it('compiles on the main thread in a relaunched server unless the operator chose either way (session 11)', () => {
    const budget = Math.max(256, Math.floor(currentHeapMb / 2));
    const compileFlags = (env: NodeJS.ProcessEnv, execArgv: string[]) =>
      launchPlan(configWith({ memory_budget_mb: budget }), env, execArgv)?.execArgv.filter((flag) => flag.includes('concurrent')) ?? [];
    expect(compileFlags({}, [])).toEqual(['--no-concurrent-recompilation']);
    expect(compileFlags({ NODE_OPTIONS: '--concurrent-recompilation' }, [])).toEqual([]);
    expect(compileFlags({}, ['--no-concurrent-recompilation'])).toEqual([]);
    expect(compileFlags({}, ['--concurrent_recompilation'])).toEqual([]);
  });

  it('bounds the young generation of a relaunched server unless the operator sized it, and never relaunches for it alone', () => {
    const budget = Math.max(256, Math.floor(currentHeapMb / 2));
    expect(launchPlan(configWith({ memory_budget_mb: budget }), {}, [])?.execArgv).toContain(`--max-semi-space-size=${SEMI_SPACE_MB}`);
    expect(launchPlan(configWith({ memory_budget_mb: budget }), { NODE_OPTIONS: '--max-semi-space-size=4' }, [])?.execArgv.filter((flag) => flag.startsWith('--max-semi'))).toEqual([]);
    expect(launchPlan(configWith({ memory_budget_mb: budget }), {}, ['--max-semi-space-size=4'])?.execArgv.filter((flag) => flag.startsWith('--max-semi'))).toEqual([]);
    // No heap to lower and enough open files: no relaunch, whatever the young generation.
    if ((openFileLimits()?.soft ?? Infinity) >= configWith({}).server.max_connections + 1024) {
      expect(launchPlan(configWith({ memory_budget_mb: 1_048_576 }), {}, [])).toBeUndefined();
    }
  });

  it('never raises the heap, never relaunches twice, and leaves an explicit heap flag alone', () => {
    expect(launchPlan(configWith({ memory_budget_mb: 1_048_576 }), {}, [])?.execArgv.filter((flag) => flag.startsWith('--max-old')) ?? []).toEqual([]);
    expect(launchPlan(configWith({ memory_budget_mb: 256 }), { [LAUNCHED_ENV]: '1' }, [])).toBeUndefined();
    expect(launchPlan(configWith({ memory_budget_mb: 256 }), { NODE_OPTIONS: '--max-old-space-size=100' }, [])?.execArgv.filter((flag) => flag.startsWith('--max-old')) ?? []).toEqual([]);
    expect(launchPlan(configWith({ memory_budget_mb: 256 }), {}, ['--max-old-space-size=100'])?.execArgv.filter((flag) => flag.startsWith('--max-old')) ?? []).toEqual([]);
  });

  it('reads the open-file limits on Linux', () => {
    const limits = openFileLimits();
    if (process.platform !== 'linux') return;
    expect(limits!.soft).toBeGreaterThan(0);
    expect(limits!.hard).toBeGreaterThanOrEqual(limits!.soft);
  });
});

describe('relaunch', () => {
  it('starts the server with at most two malloc arenas, or with the cap the environment sets', async () => {
    // The child exits with the cap it was given (0 when none).
    const script = join(tempDir('veil-launch-'), 'arenas.mjs');
    writeFileSync(script, 'process.exit(Number(process.env.MALLOC_ARENA_MAX ?? 0));\n');
    const saved = process.env.MALLOC_ARENA_MAX;
    try {
      delete process.env.MALLOC_ARENA_MAX;
      expect(await relaunch({ execArgv: [] }, script, [])).toBe(2);
      process.env.MALLOC_ARENA_MAX = '4';
      expect(await relaunch({ execArgv: [] }, script, [])).toBe(4);
    } finally {
      if (saved === undefined) delete process.env.MALLOC_ARENA_MAX;
      else process.env.MALLOC_ARENA_MAX = saved;
    }
  });

  it("runs the server with the plan's V8 flags", async () => {
    // The child exits 0 only when it was started with the young-generation bound and main-thread compiles.
    const script = join(tempDir('veil-launch-'), 'flags.mjs');
    writeFileSync(script, `process.exit(process.execArgv.includes('--max-semi-space-size=${SEMI_SPACE_MB}') && process.execArgv.includes('${MAIN_THREAD_COMPILE}') ? 0 : 3);\n`);
    const budget = Math.max(256, Math.floor(currentHeapMb / 2));
    const plan = launchPlan(configWith({ memory_budget_mb: budget }), {}, [])!;
    expect(await relaunch(plan, script, [])).toBe(0);
  });
});
