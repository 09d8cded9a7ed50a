// The `veil` command and `make run` as processes (issue 15, items 15 and 17): every command
// answers --help with its usage (exit 0), a usage error says what is wrong with the usage
// (exit 2) and never a stack trace; `veil policy validate` and POST /v1/admin/policy/validate
// list every problem of every file in one run; `make run` (scripts/run.sh) listens where
// VEIL_PORT and VEIL_HOST say.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, ROOT, startVeil, VEIL_BIN } from './support/server.js';

function veil(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [VEIL_BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A stack frame line as Node prints them. */
const STACK_FRAME = /^\s+at .+\(?.*:\d+:\d+\)?$/m;

describe('veil --help and usage errors (process)', () => {
  const helps: [string[], RegExp][] = [
    [['--help'], /^veil \d+\.\d+\.\d+\n\nusage:\n {2}veil serve/],
    [['-h'], /^veil \d+\.\d+\.\d+\n\nusage:/],
    [['help', 'serve'], /^usage: veil serve /],
    [['serve', '--help'], /^usage: veil serve \[--config FILE\]/],
    [['serve', '-h'], /^usage: veil serve /],
    [['keygen', '--help'], /^usage: veil keygen\n/],
    [['policy', '--help'], /^usage: veil policy validate DIR\n/],
    [['policy', 'validate', '--help'], /^usage: veil policy validate DIR\n/],
    [['audit', '--help'], /^usage: veil audit verify FILE/],
    [['audit', 'verify', '--help'], /^usage: veil audit verify FILE/],
  ];
  for (const [args, usage] of helps) {
    it(`veil ${args.join(' ')} prints the usage and exits 0`, () => {
      const result = veil(...args);
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(usage);
      expect(result.stderr).toBe('');
    });
  }

  const errors: [string[], RegExp][] = [
    [['serve', '--bogus'], /^veil serve: Unknown option '--bogus'/],
    [['serve', 'extra'], /^veil serve: unexpected argument 'extra'/],
    [['serve', '--port', 'abc'], /^veil serve: --port must be an integer from 0 to 65535/],
    [['serve', '--workers', '0'], /^veil serve: --workers must be a positive integer/],
    [['serve', '--port'], /^veil serve: Option '--port <value>' argument missing/],
    [['policy'], /^veil policy: missing subcommand/],
    [['policy', 'check', 'policies'], /^veil policy: unknown subcommand 'check'/],
    [['policy', 'validate'], /^veil policy validate: missing the policy directory DIR/],
    [['policy', 'validate', '--strict', 'policies'], /^veil policy: Unknown option '--strict'/],
    [['policy', 'validate', 'policies', 'more'], /^veil policy validate: unexpected argument 'more'/],
    [['keygen', 'now'], /^veil keygen: unexpected argument 'now'/],
    [['audit'], /^veil audit: missing subcommand/],
    [['audit', 'verify'], /^veil audit verify: missing the audit file FILE/],
    [['audit', 'verify', 'a.log', '--nope'], /^veil audit verify: Unknown option '--nope'/],
    [['frobnicate'], /^veil: unknown command 'frobnicate'/],
    [['--frobnicate'], /^veil: unknown option '--frobnicate'/],
    [['help', 'frobnicate'], /^veil help: unknown command 'frobnicate'/],
  ];
  for (const [args, message] of errors) {
    it(`veil ${args.join(' ')} is a usage error (exit 2, no stack trace)`, () => {
      const result = veil(...args);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toMatch(/usage:/);
      expect(result.stderr).not.toMatch(STACK_FRAME);
      expect(result.stdout).toBe('');
    });
  }

  it('runs the commands themselves as before', () => {
    expect(veil('keygen').stdout).toMatch(/^[0-9a-f]{64}\n$/);
    expect(veil('--version').stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const shipped = veil('policy', 'validate', 'policies');
    expect(shipped.status).toBe(0);
    expect(shipped.stdout).toMatch(/^\d+ valid policies: .*default/);
  });
});

describe('policy validation lists every problem of every file in one run', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'veil-cli-policies-'));
    // a.yaml: a schema problem and semantic problems; b.yaml: semantic problems and a
    // duplicate name; c.yaml: valid.
    writeFileSync(
      join(dir, 'a.yaml'),
      'name: alpha\nversion: 1\nrules:\n  - {name: r1, match: {entity_type: emial}, action: tokenize, restore_strategy: missing}\n  - {name: r2, match: {}, action: redact, restore_mode: full}\n',
    );
    writeFileSync(join(dir, 'b.yaml'), 'name: alpha\nversion: "2"\nrules:\n  - {name: default, match: {}, action: allow}\ncustom_patterns:\n  - {entity_type: email, pattern: "(a)\\\\1"}\n');
    writeFileSync(join(dir, 'c.yaml'), 'name: gamma\nversion: "1"\nrules:\n  - {name: all, match: {}, action: tokenize}\n');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const expected = (file: (name: string) => string): string[] => [
    `${file('a.yaml')}:2: version: must be a string (quote the value)`,
    `${file('a.yaml')}:4: rules[0].restore_strategy: names no entry of restore_strategies`,
    `${file('a.yaml')}:4: rules[0].match.entity_type: is not a built-in type nor a custom_patterns type (write custom:<name> for types from request patterns)`,
    `${file('a.yaml')}:5: rules[1].restore_mode: only applies to action tokenize`,
    `${file('b.yaml')}:4: rules[0].name: is reserved (reported when no rule matches)`,
    `${file('b.yaml')}:6: custom_patterns[0].entity_type: must not reuse a built-in type name`,
    `${file('b.yaml')}:6: custom_patterns[0].pattern: backreferences are not supported`,
    `${file('b.yaml')}:1: name: duplicate policy name (also defined in ${file('a.yaml')})`,
  ];

  it('veil policy validate DIR prints them all and exits 1', () => {
    const result = veil('policy', 'validate', dir);
    expect(result.status).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([...expected((name) => join(dir, name)), '8 problem(s) found']);
  });

  it('POST /v1/admin/policy/validate answers them all (real process)', async () => {
    const server = await startVeil();
    try {
      // The API validates policy files sent inline (a directory must lie inside policy.directory).
      const files = Object.fromEntries(['a.yaml', 'b.yaml'].map((name) => [name, readFileSync(join(dir, name), 'utf8')]));
      const answer = await postJson(`${server.url}/v1/admin/policy/validate`, { files });
      expect(answer.status).toBe(200);
      expect(answer.body.valid).toBe(false);
      const lines = (answer.body.errors as { file: string; line?: number; field: string; message: string }[]).map(
        (issue) => `${issue.file}${issue.line !== undefined ? `:${issue.line}` : ''}: ${issue.field}: ${issue.message}`,
      );
      expect(lines).toEqual(expected((name) => name));
    } finally {
      await server.stop();
    }
  });
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

describe('make run honours VEIL_PORT and VEIL_HOST; make eval stays in the repository', () => {
  it('passes them to scripts/run.sh (make -n) when PORT and HOST are not given', () => {
    const dry = spawnSync('make', ['-n', 'run', 'NER=0'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, VEIL_PORT: '4321', VEIL_HOST: '127.0.0.2' } });
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(/^PORT=4321 HOST=127\.0\.0\.2 .*scripts\/run\.sh$/m);
    const explicit = spawnSync('make', ['-n', 'run', 'NER=0', 'PORT=4400'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, VEIL_PORT: '4321' } });
    expect(explicit.stdout).toMatch(/^PORT=4400 .*scripts\/run\.sh$/m);
  });

  it('make eval and make eval-offline use the corpus and scorer inside the repository', () => {
    for (const target of ['eval', 'eval-offline']) {
      const dry = spawnSync('make', ['-n', '--no-print-directory', target], { cwd: ROOT, encoding: 'utf8', env: process.env });
      expect(dry.status).toBe(0);
      const command = dry.stdout.trimEnd().split('\n').at(-1)!;
      expect(command).toContain('data/dev-corpus.jsonl');
      expect(command).not.toMatch(/\.\.\//);
      for (const path of command.split(/\s+/).filter((word) => /^(data|tools|server)\//.test(word))) expect(existsSync(join(ROOT, path)), path).toBe(true);
    }
  });

  it('scripts/run.sh listens on VEIL_HOST:VEIL_PORT', async () => {
    const port = await freePort();
    // Its SQLite state goes to a directory of the test's own, not the checkout's .veil-data/.
    const data = mkdtempSync(join(tmpdir(), 'veil-cli-run-'));
    const child = spawn(join(ROOT, 'scripts/run.sh'), [], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NER: '0', VEIL_PORT: String(port), VEIL_HOST: '127.0.0.1', VEIL_LOG_FORMAT: 'json', DATA_DIR: data },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let buffered = '';
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString('utf8');
          const line = buffered.split('\n').find((candidate) => candidate.includes('veil server listening'));
          if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
        });
        child.once('exit', (code) => reject(new Error(`run.sh exited with ${String(code)}: ${buffered}`)));
      });
      expect(url).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`${url}/livez`)).status).toBe(200);
      // It execs node with a bounded young generation (docs/operations.md "Young generation").
      if (existsSync(`/proc/${child.pid}/cmdline`)) expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0')).toContain('--max-semi-space-size=8');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(data, { recursive: true, force: true });
    }
  });
});
