// The documentation as executable tests (issue 15, item 18), so the README and docs cannot rot:
//
// 1. Every relative link of every Markdown file of the repository points at a file that exists
//    (and, into a Markdown file, at a heading that exists), and every repository path a
//    document names in inline code exists.
// 2. Every ```sh / ```bash block of every Markdown file runs with bash against a real
//    `veil serve` (dev mode, a free port: `127.0.0.1:3000` and `localhost:3000` in a block are
//    rewritten to it), in a scratch directory per document that links the repository's
//    top-level entries (so `npx veil`, `policies/`, `data/` work and files a block writes stay
//    out of the tree), with npm offline (nothing is installed) and curl failing on HTTP errors.
//    A block passes when it exits 0 and meets its `expect` markers. A block that cannot run
//    here (a cluster, `make run` itself, a file of your own) carries
//    `<!-- doc-test: skip: <reason> -->`; every marker is described in e2e/support/markdown.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fencedBlocks,
  headingAnchors,
  isShell,
  jsonValues,
  markdownFiles,
  mentionedPaths,
  readText,
  relativeLinks,
  repoPathExists,
  valueAt,
  type Marker,
} from './support/markdown.js';
import { ROOT, startVeil, type ServerProcess } from './support/server.js';

const FILES = markdownFiles(ROOT);
/** Top-level entries of the repository (what a repository path starts with). */
const TOP_LEVEL = new Set(readdirSync(ROOT).filter((name) => name !== '.git'));
/** Paths the build or a developer's setup (`make run`: .veil-data) creates; documents may name them before they exist. */
const GENERATED = /(^|\/)(node_modules|dist|\.cache|\.venv|\.venv-presidio|\.veil-data)(\/|$)/;
const BLOCK_TIMEOUT_MS = 120_000;

describe('links and repository paths in the Markdown files', () => {
  it('finds the documents', () => {
    expect(FILES).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/config.md']));
  });

  for (const file of FILES) {
    it(`${file}: every relative link and named path exists`, () => {
      const text = readText(ROOT, file);
      const problems: string[] = [];
      for (const link of relativeLinks(text)) {
        const [pathPart, anchor] = link.target.split('#') as [string, string | undefined];
        const target = normalize(join(dirname(file), decodeURI(pathPart)));
        if (target.startsWith('..') || !existsSync(join(ROOT, target))) {
          problems.push(`${file}:${link.line}: link to ${link.target}: no such file in the repository`);
          continue;
        }
        if (anchor !== undefined && target.endsWith('.md') && !headingAnchors(readText(ROOT, target)).has(anchor)) {
          problems.push(`${file}:${link.line}: link to ${link.target}: no heading #${anchor} in ${target}`);
        }
      }
      for (const mention of mentionedPaths(text, TOP_LEVEL)) {
        if (GENERATED.test(mention.target)) continue;
        const fromRoot = repoPathExists(ROOT, mention.target);
        const fromHere = !fromRoot && repoPathExists(ROOT, normalize(join(dirname(file), mention.target)));
        const inside = !normalize(mention.target).startsWith('..') || normalize(join(dirname(file), mention.target)).split('/')[0] !== '..';
        if (!inside || (!fromRoot && !fromHere)) problems.push(`${file}:${mention.line}: \`${mention.target}\`: no such path in the repository`);
      }
      expect(problems).toEqual([]);
    });
  }
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Entries a block must never reach through the scratch directory: with them an unmarked
 * `make run`, `npm ci` or `tsc -b` would reinstall or rebuild the real checkout. Without them
 * those fail harmlessly in the scratch directory (and the test reports the block).
 */
const NOT_LINKED = new Set(['node_modules', 'Makefile', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json', 'tsconfig.tools.json', 'vitest.config.ts']);

/** Commands that build, install or reach a cluster: a block using one must be marked skip. */
const NEEDS_SKIP = /(^|[\s;&|(])(make|kubectl|helm)\s|\bnpm\s+(ci|install|i)\b|\btsc\b|\bvitest\b/m;

/**
 * A scratch directory that looks like a checkout to the commands the docs show: the
 * repository's top-level entries linked (except NOT_LINKED), and a node_modules/.bin of its
 * own linking the repository's commands, so `npx veil` runs the built server.
 */
function sandbox(): string {
  const dir = mkdtempSync(join(tmpdir(), 'veil-docs-'));
  for (const entry of TOP_LEVEL) if (!NOT_LINKED.has(entry)) symlinkSync(join(ROOT, entry), join(dir, entry));
  const bin = join(dir, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  for (const command of readdirSync(join(ROOT, 'node_modules', '.bin'))) symlinkSync(join(ROOT, 'node_modules', '.bin', command), join(bin, command));
  mkdirSync(join(dir, '.home'));
  return dir;
}

function environment(dir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: join(dir, '.home'),
    LANG: 'C.UTF-8',
    // Run what the checkout has; never fetch a package.
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

/** bash prelude: stop at the first failing command; an HTTP error is a failure. */
const PRELUDE = 'set -eo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n';

function rewrite(code: string, port: number): string {
  return code.replace(/\b(?:127\.0\.0\.1|localhost):3000\b/g, `127.0.0.1:${port}`);
}

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runShell(code: string, cwd: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', PRELUDE + code], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n[doc-test: killed after ${BLOCK_TIMEOUT_MS / 1000} s]`;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, BLOCK_TIMEOUT_MS);
    child.once('error', reject);
    child.once('close', (exit) => {
      clearTimeout(timer);
      resolve({ code: exit, stdout, stderr });
    });
  });
}

/** A server a block started: its process group, where it listens, what it printed. */
interface BlockServer {
  readonly child: ChildProcess;
  readonly port: number;
  output: string;
}

async function startBlockServer(code: string, cwd: string, env: Record<string, string>): Promise<BlockServer> {
  const port = await freePort();
  const child = spawn('bash', ['-c', PRELUDE + code], {
    cwd,
    env: { ...env, VEIL_PORT: String(port), VEIL_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const server: BlockServer = { child, port, output: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (server.output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (server.output += chunk));
  const deadline = Date.now() + BLOCK_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited (${String(child.exitCode ?? child.signalCode)}) before it answered:\n${server.output}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/livez`)).ok) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopBlockServer(server);
      throw new Error(`the server did not answer /livez within ${BLOCK_TIMEOUT_MS / 1000} s:\n${server.output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function stopBlockServer(server: BlockServer): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** The expect markers' failures for one block's output ([] when every one holds). */
function unmet(markers: readonly Marker[], stdout: string): string[] {
  const failures: string[] = [];
  const values = jsonValues(stdout);
  for (const marker of markers) {
    if (marker.kind === 'expect-stdout') {
      // Multiline: ^ and $ hold at every line of the output.
      if (!new RegExp(marker.pattern, 'm').test(stdout)) failures.push(`stdout does not match /${marker.pattern}/m`);
      continue;
    }
    if (marker.kind !== 'expect') continue;
    const { found, value } = valueAt(values, marker.path);
    const shown = `${marker.path} ${marker.op} ${marker.value}`.trim();
    if (!found) {
      failures.push(`${shown}: no ${marker.path} in the printed JSON`);
      continue;
    }
    switch (marker.op) {
      case 'exists':
        break;
      case '=':
        if (!isDeepStrictEqual(value, JSON.parse(marker.value))) failures.push(`${shown}: got ${JSON.stringify(value)}`);
        break;
      case '~':
        if (typeof value !== 'string' || !new RegExp(marker.value).test(value)) failures.push(`${shown}: got ${JSON.stringify(value)}`);
        break;
      case 'contains': {
        const wanted: unknown = JSON.parse(marker.value);
        const holds = Array.isArray(value) ? value.some((item) => isDeepStrictEqual(item, wanted)) : typeof value === 'string' && typeof wanted === 'string' && value.includes(wanted);
        if (!holds) failures.push(`${shown}: got ${JSON.stringify(value)}`);
        break;
      }
    }
  }
  return failures;
}

const RUNNABLE = FILES.map((file) => ({ file, blocks: fencedBlocks(readText(ROOT, file), file) })).filter(({ blocks }) =>
  blocks.some((block) => isShell(block) || block.markers.length > 0),
);

describe('shell blocks of the Markdown files, against a real veil serve', () => {
  let main: ServerProcess;
  let mainPort: number;
  beforeAll(async () => {
    main = await startVeil({ env: { VEIL_SESSION_SECRET: '3d'.repeat(32) } });
    mainPort = Number(new URL(main.url).port);
  });
  afterAll(async () => {
    await main.stop();
  });

  it('has blocks to run, and every skip says why', () => {
    const shell = RUNNABLE.flatMap(({ blocks }) => blocks.filter(isShell));
    expect(shell.length).toBeGreaterThan(10);
    expect(shell.filter((block) => !block.markers.some((marker) => marker.kind === 'skip')).length).toBeGreaterThan(10);
  });

  for (const { file, blocks } of RUNNABLE) {
    it(`${file}: every unmarked block runs and states what it shows`, async () => {
      const dir = sandbox();
      const env = environment(dir);
      const failures: string[] = [];
      let server: BlockServer | undefined;
      try {
        for (const block of blocks) {
          const where = `${file}:${block.line}`;
          const has = <K extends Marker['kind']>(kind: K) => block.markers.find((marker): marker is Extract<Marker, { kind: K }> => marker.kind === kind);
          if (has('skip') !== undefined) continue;
          const named = has('file');
          if (named !== undefined) writeFileSync(join(dir, named.name), block.code);
          if (!isShell(block)) continue;
          if (NEEDS_SKIP.test(block.code)) {
            failures.push(`${where}: builds, installs or needs a cluster; mark it <!-- doc-test: skip: <reason> -->`);
            continue;
          }
          if (has('stop-server') !== undefined && server !== undefined) {
            await stopBlockServer(server);
            server = undefined;
          }
          const port = server?.port ?? mainPort;
          const code = rewrite(block.code, port);
          const starts = has('server');
          if (starts !== undefined) {
            if (server !== undefined) await stopBlockServer(server);
            try {
              server = await startBlockServer(code, dir, env);
              if (starts.restart) {
                await stopBlockServer(server);
                server = await startBlockServer(code, dir, env);
              }
            } catch (error) {
              failures.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
              server = undefined;
            }
            continue;
          }
          const ran = await runShell(code, dir, env);
          const problems = ran.code === 0 ? unmet(block.markers, ran.stdout) : [`exit ${String(ran.code)}`];
          if (problems.length > 0) failures.push(`${where}: ${problems.join('; ')}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`);
        }
      } finally {
        if (server !== undefined) await stopBlockServer(server);
        rmSync(dir, { recursive: true, force: true });
      }
      expect(failures).toEqual([]);
    }, 600_000);
  }
});
