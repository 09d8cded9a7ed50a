// The server with the real NER sidecar process (ner/.venv, built by `make ner-venv`, which
// `make test` runs first): names are detected and restored end to end; a wrong shared secret
// makes `both` fall back with a warning and `advanced` fail closed.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, ROOT, startVeil, type ServerProcess } from './support/server.js';

const PYTHON = join(ROOT, 'ner/.venv/bin/python');
const available = existsSync(PYTHON);
if (!available && process.env.CI !== undefined) throw new Error('ner/.venv is missing in CI: make test must run make ner-venv first');
const KEY = 'e2e'.repeat(11);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

describe.skipIf(!available)('veil with the real NER sidecar', () => {
  let sidecar: ChildProcess;
  let sidecarUrl = '';
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    const port = await freePort();
    sidecarUrl = `http://127.0.0.1:${port}`;
    sidecar = spawn(PYTHON, ['-m', 'veil_ner'], {
      cwd: join(ROOT, 'ner'),
      env: { PATH: process.env.PATH ?? '', VEIL_NER_PORT: String(port), VEIL_NER_API_KEY: KEY },
      stdio: 'ignore',
    });
    const deadline = Date.now() + 90_000;
    for (;;) {
      try {
        if ((await fetch(`${sidecarUrl}/readyz`)).ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error('sidecar did not become ready');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    sidecar.kill('SIGTERM');
  });

  const start = async (mode: string, key: string): Promise<ServerProcess> => {
    const server = await startVeil({
      env: { VEIL_DETECTOR__MODE: mode, VEIL_DETECTOR__ADVANCED_URL: sidecarUrl, VEIL_DETECTOR__API_KEY: key },
    });
    servers.push(server);
    return server;
  };

  it('detects and restores names in mode both', async () => {
    const server = await start('both', KEY);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const input = 'Yesterday Barack Obama met Angela Merkel in Berlin; write to press@example.org.';
    const transformed = await postJson(`${server.url}/v1/transform`, { input });
    expect(transformed.status).toBe(200);
    expect(transformed.body.detector_mode).toBe('builtin_and_ner');
    const types = transformed.body.entities.map((entity: any) => entity.type);
    expect(types).toContain('person');
    expect(types).toContain('email');
    expect(transformed.body.safe_text).not.toContain('Obama');
    const restored = await postJson(`${server.url}/v1/rehydrate`, { output: transformed.body.safe_text, session_state: transformed.body.session_state });
    expect(restored.body.restored_text).toBe(input);
    expect(server.logs.join('\n')).not.toContain('Obama');
  });

  it('falls back with a warning (both) or fails closed (advanced) when the secret is wrong', async () => {
    const both = await start('both', 'wrong'.repeat(8));
    const fallback = await postJson(`${both.url}/v1/transform`, { input: 'Barack Obama, mail a@example.org' });
    expect(fallback.status).toBe(200);
    expect(fallback.body.detector_mode).toBe('builtin_regex');
    expect(fallback.body.warnings.join(' ')).toMatch(/did not answer/);
    const advanced = await start('advanced', 'wrong'.repeat(8));
    const refused = await postJson(`${advanced.url}/v1/transform`, { input: 'Barack Obama, mail a@example.org' });
    expect(refused.status).toBe(502);
    expect(refused.body.code).toBe('VEIL_DETECTION_FAILED');
    expect(refused.text).not.toContain('Obama');
  });
});
