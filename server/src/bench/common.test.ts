// The benchmark's server spawner: an "unpinned" server runs on every core even when the
// benchmark has pinned its own main thread (the load generator) to one core. A child inherits
// the affinity of the thread that spawns it; before session 9 the `--workers 2` row's servers
// shared the load generator's core.
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_CORES, hasTaskset, spawnServer, type ServerProcess } from './common.js';

/** The affinity mask `taskset -p` prints for a pid (hex, e.g. "3"). */
function mask(pid: number): string {
  const out = spawnSync('taskset', ['-p', String(pid)], { encoding: 'utf8' }).stdout;
  return /mask: ([0-9a-f]+)/.exec(out)?.[1] ?? '';
}

const multiCore = hasTaskset && cpus().length >= 2;

describe('spawnServer', () => {
  let server: ServerProcess | undefined;
  afterEach(async () => {
    spawnSync('taskset', ['-cp', ALL_CORES, String(process.pid)]);
    await server?.stop();
    server = undefined;
  });

  it.runIf(multiCore)('starts a server without a core on every core, whatever the spawning thread is pinned to', async () => {
    const everyCore = (2 ** cpus().length - 1).toString(16);
    spawnSync('taskset', ['-cp', '1', String(process.pid)]);
    expect(mask(process.pid)).toBe('2');
    server = await spawnServer(['-e', 'console.log(JSON.stringify({ url: "http://127.0.0.1:1" })); setInterval(() => undefined, 1000);'], {});
    expect(mask(server.pid)).toBe(everyCore);
  });

  it.runIf(multiCore)('pins a server given a core to that core', async () => {
    server = await spawnServer(['-e', 'console.log(JSON.stringify({ url: "http://127.0.0.1:1" })); setInterval(() => undefined, 1000);'], {}, 0);
    expect(mask(server.pid)).toBe('1');
  });
});
