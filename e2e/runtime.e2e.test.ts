// The `veil` command on the supported runtimes: it runs on this Node (22 or newer), and on a Node
// older than 22 (package.json engines) it refuses with a plain message instead of failing on a
// missing built-in. The old runtime is simulated by overriding process.versions.node before
// bin/veil.js runs (an --import preload), so the test needs no second Node installation.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT, VEIL_BIN } from './support/server.js';

function veil(preload: string | undefined, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const imports = preload === undefined ? [] : ['--import', `data:text/javascript,${encodeURIComponent(preload)}`];
  const result = spawnSync(process.execPath, [...imports, VEIL_BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('veil on the supported runtimes', () => {
  it('runs on this Node', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
    const result = veil(undefined, ['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).not.toBe('');
  });

  it('refuses a Node older than 22 with a message naming the requirement', () => {
    const result = veil("Object.defineProperty(process.versions, 'node', { value: '20.19.0' });", ['--version']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('veil needs Node.js 22 or newer');
    expect(result.stderr).toContain('v20.19.0');
    expect(result.stdout).toBe('');
  });
});
