// Start-up cost of the real `veil serve` process (issue 20, cold start to /readyz): the optional
// heavy libraries load only when something needs them. A module-load hook, preloaded through
// NODE_OPTIONS, reports each npm package the moment the process first loads a file of it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startVeil, type ServerProcess } from './support/server.js';

const MARK = 'veil-e2e-loaded-package';
const HOOK = `
import { registerHooks } from 'node:module';
import { writeSync } from 'node:fs';
const seen = new Set();
registerHooks({
  load(url, context, next) {
    const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url);
    if (match !== null && !seen.has(match[1])) {
      seen.add(match[1]);
      writeSync(2, '${MARK} ' + match[1] + '\\n');
    }
    return next(url, context);
  },
});
`;

/** Loaded only by the routes or settings that use them (tracing, Redis, images, OCR, DOCX, PDF). */
const OPTIONAL = ['@opentelemetry/sdk-node', '@opentelemetry/exporter-trace-otlp-http', '@grpc/grpc-js', 'ioredis', 'sharp', 'tesseract.js', 'mammoth', 'jszip', 'unpdf'];

describe('veil serve start-up (real process)', () => {
  let dir: string;
  let server: ServerProcess;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'veil-startup-'));
    const hook = join(dir, 'hook.mjs');
    writeFileSync(hook, HOOK);
    server = await startVeil({ env: { NODE_OPTIONS: `--import=${hook}` } });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const loaded = (): string[] =>
    server.logs
      .join('\n')
      .split('\n')
      .filter((line) => line.startsWith(`${MARK} `))
      .map((line) => line.slice(MARK.length + 1));

  it('loads no optional library to become ready, nor to serve a transform', async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const transform = await postJson(`${server.url}/v1/transform`, { input: 'Write to jane.doe@example.com' });
    expect(transform.status).toBe(200);
    const packages = loaded();
    // The hook works: the framework itself was reported.
    expect(packages).toContain('fastify');
    expect(packages.filter((name) => OPTIONAL.includes(name))).toEqual([]);
  });
});
