// The composition root's `only` (compose.ts): what app.ts hands a route or plugin holds the
// fields its signature names and nothing else of AppDeps, with getters kept live (tests and
// reloads swap what a getter returns after the app is built).
import { describe, expect, it } from 'vitest';
import { only } from './compose.js';
import type { AppDeps } from './deps.js';

describe('only', () => {
  it('copies the named fields alone, a getter still live and an absent optional field left out', () => {
    let version = '1.0.0';
    const deps = Object.defineProperties(
      {},
      {
        version: { get: () => version, enumerable: true },
        startedAtMs: { value: 5, enumerable: true },
        digestSecret: { value: Buffer.alloc(32), enumerable: true },
      },
    ) as AppDeps;
    const picked = only(deps, 'version', 'startedAtMs', 'ner');
    expect(Object.keys(picked).sort()).toEqual(['startedAtMs', 'version']);
    expect('digestSecret' in picked).toBe(false);
    version = '2.0.0';
    expect(picked.version).toBe('2.0.0');
  });
});
