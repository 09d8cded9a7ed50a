// What a plainly started `veil serve` replaces itself with (cli/serve-exec.ts): the image's
// process settings, each one the operator set either way kept, and never twice. The real
// process is checked in e2e/startup.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { EXEC_ENV, serveExecPlan } from './serve-exec.js';

describe('serveExecPlan', () => {
  it('adds the bounded young generation, main-thread compiles and the arena cap to a plain serve', () => {
    expect(serveExecPlan(['serve', '--port', '0'], [], {})).toEqual({
      flags: ['--max-semi-space-size=8', '--no-concurrent-recompilation'],
      env: { MALLOC_ARENA_MAX: '2', [EXEC_ENV]: '1' },
    });
  });

  it('keeps what the operator set on the command line, in NODE_OPTIONS or in the environment', () => {
    expect(serveExecPlan(['serve'], ['--max-semi-space-size=8'], { MALLOC_ARENA_MAX: '4' })).toEqual({ flags: ['--no-concurrent-recompilation'], env: { [EXEC_ENV]: '1' } });
    expect(serveExecPlan(['serve'], [], { NODE_OPTIONS: '--import=x.mjs --max-semi-space-size=8', MALLOC_ARENA_MAX: '8' })).toEqual({ flags: ['--no-concurrent-recompilation'], env: { [EXEC_ENV]: '1' } });
    expect(serveExecPlan(['serve'], ['--max_semi_space_size=32', '--no-concurrent-recompilation'], { MALLOC_ARENA_MAX: '2' })).toBeUndefined();
  });

  it('never replaces a replaced or relaunched server, a cluster worker, nor another command', () => {
    expect(serveExecPlan(['serve'], [], { [EXEC_ENV]: '1' })).toBeUndefined();
    expect(serveExecPlan(['serve'], [], { __VEIL_LAUNCHED: '1' })).toBeUndefined();
    expect(serveExecPlan(['serve'], [], { NODE_UNIQUE_ID: '1' })).toBeUndefined();
    expect(serveExecPlan(['detect', 'x'], [], {})).toBeUndefined();
    expect(serveExecPlan([], [], {})).toBeUndefined();
    expect(serveExecPlan(['serve', '--help'], [], {})).toBeUndefined();
  });
});
