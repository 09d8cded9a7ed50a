// Start-up cost of the real `veil serve` process (issue 20, cold start to /readyz): the optional
// heavy libraries load only when something needs them. A module-load hook, preloaded through
// NODE_OPTIONS, reports each npm package the moment the process first loads a file of it, and
// each file of the bundle (server/dist/bundle/, scripts/bundle.mjs) it loads: the packages bundled
// into that file count as loaded (the bundle's manifest.json lists them per file; a dynamic
// import is a file of its own).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { postJson, ROOT, startVeil, type ServerProcess } from './support/server.js';

const MARK = 'veil-e2e-loaded-package';
const CHUNK_MARK = 'veil-e2e-loaded-chunk';
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
    const chunk = /\\/server\\/dist\\/bundle\\/([^/]+[.]js)$/.exec(url);
    if (chunk !== null && !seen.has(chunk[1])) {
      seen.add(chunk[1]);
      writeSync(2, '${CHUNK_MARK} ' + chunk[1] + '\\n');
    }
    return next(url, context);
  },
});
`;

interface BundleManifest {
  readonly outputs: Record<string, string[]>;
}

/** Loaded only by the routes or settings that use them (tracing, Redis, images, OCR, DOCX, PDF, JWT/OIDC auth). */
const OPTIONAL = ['@opentelemetry/sdk-node', '@opentelemetry/exporter-trace-otlp-http', '@grpc/grpc-js', 'ioredis', 'sharp', 'tesseract.js', 'mammoth', 'jszip', 'unpdf', 'jose'];

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

  const marked = (mark: string): string[] =>
    server.logs
      .join('\n')
      .split('\n')
      .filter((line) => line.startsWith(`${mark} `))
      .map((line) => line.slice(mark.length + 1));
  /** Packages loaded from node_modules, and those inside each bundle file loaded. */
  const loaded = (): string[] => {
    const chunks = marked(CHUNK_MARK);
    const manifest = chunks.length === 0 ? undefined : (JSON.parse(readFileSync(join(ROOT, 'server/dist/bundle/manifest.json'), 'utf8')) as BundleManifest);
    return [...new Set([...marked(MARK), ...chunks.flatMap((chunk) => manifest?.outputs[chunk] ?? [])])];
  };

  it('runs the bundle `make build` writes (server/bin/veil.js)', () => {
    // Missing or older than tsc's output: run `make build` (or `node scripts/bundle.mjs`) first.
    expect(marked(CHUNK_MARK)).toContain('veil.js');
  });

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

/** The command line, the environment and the child processes of a live process (Linux /proc). */
function processOf(pid: number): { argv: string[]; env: string[]; children: string } {
  const read = (file: string): string[] => readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0').filter((part) => part !== '');
  return { argv: read('cmdline'), env: read('environ'), children: readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim() };
}

describe.runIf(process.platform === 'linux')('a plain `veil serve` replaces itself with the image\'s process settings (cli/serve-exec.ts)', () => {
  it('runs in the spawned process itself, with the young generation bounded, compiles on the main thread and the arena cap', async () => {
    const server = await startVeil();
    try {
      const pid = server.child.pid!;
      const { argv, env, children } = processOf(pid);
      expect(argv).toEqual(expect.arrayContaining(['--max-semi-space-size=8', '--no-concurrent-recompilation']));
      expect(env).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=2']));
      // Nothing beside it: the same PID serves (no launcher, no child process).
      expect(children).toBe('');
      expect((await postJson(`${server.url}/v1/transform`, { input: 'Write to jane.doe@example.com' })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it("keeps the operator's own choice of each setting", async () => {
    // Node refuses the compiler flags in NODE_OPTIONS: the command line is where they go.
    const server = await startVeil({ nodeArgs: ['--concurrent-recompilation'], env: { MALLOC_ARENA_MAX: '4' } });
    try {
      const { argv, env } = processOf(server.child.pid!);
      expect(argv).toContain('--max-semi-space-size=8');
      expect(argv).not.toContain('--no-concurrent-recompilation');
      expect(env).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=4']));
    } finally {
      await server.stop();
    }
  });
});

describe.runIf(process.platform === 'linux')('a `veil serve` that needs a smaller heap replaces itself (cli/launcher.ts replace)', () => {
  it('serves from the spawned PID with the heap sized to the budget, nothing beside it, and stops on SIGTERM', async () => {
    // A 512 MiB budget: half of it for the main heap, well below V8's default here.
    const server = await startVeil({ env: { VEIL_SERVER__MEMORY_BUDGET_MB: '512' } });
    onTestFinished(async () => {
      await server.stop();
    });
    const pid = server.child.pid!;
    const { argv, env, children } = processOf(pid);
    expect(argv).toEqual(expect.arrayContaining(['--max-old-space-size=256', '--max-semi-space-size=8', '--no-concurrent-recompilation']));
    // Each flag once: the relaunch does not repeat what the first replacement added.
    expect(argv.filter((arg) => arg.startsWith('--max-semi-space-size'))).toHaveLength(1);
    expect(env).toEqual(expect.arrayContaining(['__VEIL_LAUNCHED=exec', 'MALLOC_ARENA_MAX=2']));
    expect(children).toBe('');
    expect((await postJson(`${server.url}/v1/transform`, { input: 'Write to jane.doe@example.com' })).status).toBe(200);
    expect(await server.stop()).toBe(0);
  });
});
