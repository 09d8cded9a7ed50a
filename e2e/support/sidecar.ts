// Starts the real NER sidecar (`python -m veil_ner` from ner/.venv, built by `make ner-venv`,
// which `make test` runs first) on a free loopback port and waits until it answers. Shared by
// the suites that need names detected for real (ner, proxy).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT } from './server.js';

export const NER_PYTHON = join(ROOT, 'ner/.venv/bin/python');
export const nerAvailable = existsSync(NER_PYTHON);
if (!nerAvailable && process.env.CI !== undefined) throw new Error('ner/.venv is missing in CI: make test must run make ner-venv first');

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Sidecar {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): void;
}

/**
 * Start a sidecar with the shared secret `key` (none: it refuses every detect call) and wait
 * until `waitFor` (`/readyz`: model loaded; `/livez`: listening) answers 200.
 */
export async function startSidecar(options: { key?: string; waitFor?: '/readyz' | '/livez'; timeoutMs?: number } = {}): Promise<Sidecar> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(NER_PYTHON, ['-m', 'veil_ner'], {
    cwd: join(ROOT, 'ner'),
    env: { PATH: process.env.PATH ?? '', VEIL_NER_PORT: String(port), ...(options.key !== undefined ? { VEIL_NER_API_KEY: options.key } : {}) },
    stdio: 'ignore',
  });
  const deadline = Date.now() + (options.timeoutMs ?? 90_000);
  for (;;) {
    try {
      if ((await fetch(`${url}${options.waitFor ?? '/readyz'}`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error('sidecar did not become ready');
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, child, stop: () => child.kill('SIGTERM') };
}
