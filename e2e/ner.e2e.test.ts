// The server with the real NER sidecar process (ner/.venv, built by `make ner-venv`, which
// `make test` runs first): names are detected and restored end to end; a wrong shared secret
// makes `both` fall back with a warning and `advanced` fail closed.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startVeil, type ServerProcess } from './support/server.js';
import { nerAvailable as available, startSidecar } from './support/sidecar.js';

const KEY = 'e2e'.repeat(11);

describe.skipIf(!available)('veil with the real NER sidecar', () => {
  let sidecar: ChildProcess;
  let sidecarUrl = '';
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    const started = await startSidecar({ key: KEY });
    sidecar = started.child;
    sidecarUrl = started.url;
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    sidecar.kill('SIGTERM');
  });

  const start = async (mode: string, key: string, url = sidecarUrl, timeout = '5'): Promise<ServerProcess> => {
    const server = await startVeil({
      env: { VEIL_DETECTOR__MODE: mode, VEIL_DETECTOR__ADVANCED_URL: url, VEIL_DETECTOR__API_KEY: key, VEIL_DETECTOR_TIMEOUT_SECS: timeout },
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

  it('reports degraded NER for a language without a model', async () => {
    const server = await start('both', KEY);
    const response = await postJson(`${server.url}/v1/transform`, { input: 'Barack Obama besuchte Berlin.', language: 'de' });
    expect(response.status).toBe(200);
    expect(response.body.detector_mode).toBe('builtin_and_ner');
    expect(response.body.warnings.join(' ')).toMatch(/degraded NER/);
  });

  it('times out against a sidecar that stopped answering (504 in advanced, fallback in both)', async () => {
    const advanced = await start('advanced', KEY, sidecarUrl, '1');
    const both = await start('both', KEY, sidecarUrl, '1');
    sidecar.kill('SIGSTOP');
    try {
      const timedOut = await postJson(`${advanced.url}/v1/transform`, { input: 'Barack Obama' });
      expect(timedOut.status).toBe(504);
      expect(timedOut.body.code).toBe('VEIL_DETECTION_FAILED');
      const fallback = await postJson(`${both.url}/v1/transform`, { input: 'Barack Obama, a@example.org' });
      expect(fallback.status).toBe(200);
      expect(fallback.body.detector_mode).toBe('builtin_regex');
    } finally {
      sidecar.kill('SIGCONT');
    }
  });

  it('falls back when the sidecar has no secret configured (it refuses every detect call)', async () => {
    const keyless = await startSidecar({ waitFor: '/livez' });
    try {
      const url = keyless.url;
      const server = await start('both', KEY, url);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      const response = await postJson(`${server.url}/v1/transform`, { input: 'Barack Obama, a@example.org' });
      expect(response.status).toBe(200);
      expect(response.body.warnings.join(' ')).toMatch(/did not answer/);
    } finally {
      keyless.stop();
    }
  }, 120_000);
});
