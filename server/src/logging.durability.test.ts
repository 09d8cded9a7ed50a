// Log lines written by a process that exits right after logging (integration: starts a child
// process). Batched stdout lines are written synchronously, so every line arrives, in order, even
// when the machine is loaded and the exit flush meets a batch written just before it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

describe('log line batching at exit', () => {
  it('a process that exits right after logging on stdout still writes every line', () => {
    const logging = fileURLToPath(new URL('./logging.ts', import.meta.url));
    const script = `import { createLogger } from ${JSON.stringify(logging)}; const log = createLogger({ level: 'info', format: 'text' }); for (let i = 0; i < 200; i += 1) log.info({ i }, 'line'); process.exit(0);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status).toBe(0);
    const lines = child.stdout.split('\n').filter((line) => line !== '');
    expect(lines.map((line) => /i=(\d+)$/.exec(line)?.[1])).toEqual(Array.from({ length: 200 }, (_, index) => String(index)));
  });

  it('keeps the order of 5,000 lines written in bursts before an exit', () => {
    const logging = fileURLToPath(new URL('./logging.ts', import.meta.url));
    const script = `import { createLogger } from ${JSON.stringify(logging)}; const log = createLogger({ level: 'info', format: 'json' }); let i = 0; const burst = () => { for (let k = 0; k < 500; k += 1) log.info({ i: i++ }, 'line'); if (i < 5000) setImmediate(burst); else process.exit(0); }; burst();`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(child.status).toBe(0);
    const seen = child.stdout.split('\n').filter((line) => line !== '').map((line) => (JSON.parse(line) as { i: number }).i);
    expect(seen).toEqual(Array.from({ length: 5000 }, (_, index) => index));
  });
});
