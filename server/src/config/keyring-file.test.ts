// The operations-related configuration rules: session.keyring_file (read at startup, exclusive
// with the other key sources, problems without key material), server.workers refused on
// per-process stores, and the default worker count.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveWorkers } from '../main.js';
import { readKeyRingFile } from './keyring-file.js';
import { ConfigError, loadConfig } from './load.js';

const KEY_A = 'a1'.repeat(32);
const KEY_B = 'b2'.repeat(32);
const dir = mkdtempSync(join(tmpdir(), 'veil-keyring-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('session.keyring_file', () => {
  it('builds the ring from the file at startup', () => {
    const path = file('ring.yaml', `current_kid: b\nkeys:\n  - {kid: a, secret: "${KEY_A}"}\n  - {kid: b, secret: "${KEY_B}"}\n`);
    const loaded = loadConfig({ env: {}, overrides: { session: { keyring_file: path } } });
    expect(loaded.keyRing.currentKid).toBe('b');
    expect(loaded.keyRing.kids).toEqual(['a', 'b']);
    expect(loaded.config.session.keyring_file).toBe(path);
    expect(loaded.generatedSecret).toBe(false);
  });

  it('accepts JSON too', () => {
    const path = file('ring.json', JSON.stringify({ current_kid: 'a', keys: [{ kid: 'a', secret: KEY_A }] }));
    expect(readKeyRingFile(path).ring?.currentKid).toBe('a');
  });

  it('lists every problem of a bad file without echoing a secret', () => {
    const leaked = 'c3'.repeat(31);
    const path = file('bad.yaml', `current_kid: z\nkeys:\n  - {kid: a, secret: "${leaked}"}\n  - {kid: a, secret: "${KEY_A}"}\n  - {kid: "bad kid", secret: "${KEY_B}"}\nextra: 1\n`);
    const found = readKeyRingFile(path).problems;
    expect(found).toEqual(
      expect.arrayContaining([
        `session.keyring_file ${path}: unknown key extra`,
        `session.keyring_file ${path}.keys[0].secret: must be 32 bytes written as 64 hex characters or standard base64`,
        `session.keyring_file ${path}.keys[1].kid: duplicates an earlier kid`,
        `session.keyring_file ${path}.keys[2].kid: must match pattern ^[A-Za-z0-9_-]{1,64}$`,
      ]),
    );
    expect(found.join('\n')).not.toContain(leaked);
    expect(found.join('\n')).not.toContain(KEY_B);
    const startup = problems(() => loadConfig({ env: {}, overrides: { session: { keyring_file: path } } }));
    expect(startup.join('\n')).not.toContain(leaked);
    expect(startup.some((line) => line.includes('keys[0].secret'))).toBe(true);
  });

  it('reports YAML syntax errors by code only, and unreadable or oversized files', () => {
    const secretish = 'd4'.repeat(32);
    const broken = file('syntax.yaml', `current_kid: [${secretish}\n`);
    const [problem] = readKeyRingFile(broken).problems;
    expect(problem).toMatch(/YAML syntax error \([A-Z_]+\)$/);
    expect(problem).not.toContain(secretish);
    expect(readKeyRingFile(join(dir, 'missing.yaml')).problems[0]).toMatch(/cannot be read \(ENOENT\)/);
    expect(readKeyRingFile(file('huge.yaml', `# ${'x'.repeat(70_000)}\n`)).problems[0]).toMatch(/larger than 65536 bytes/);
  });

  it('is exclusive with session.secret and session.keyring; VEIL_SESSION_SECRET replaces it with a warning', () => {
    const path = file('ring2.yaml', `current_kid: a\nkeys:\n  - {kid: a, secret: "${KEY_A}"}\n`);
    expect(problems(() => loadConfig({ env: {}, overrides: { session: { keyring_file: path, secret: KEY_B } } }))).toContain(
      'session.keyring_file: cannot be combined with session.secret or session.keyring: configure one',
    );
    const loaded = loadConfig({ env: { VEIL_SESSION_SECRET: KEY_B }, file: file('veil.yaml', `session:\n  keyring_file: ${path}\n`) });
    expect(loaded.config.session.keyring_file).toBeUndefined();
    expect(loaded.warnings.join('\n')).toMatch(/session\.keyring_file from the config file is ignored/);
  });
});

describe('server.workers', () => {
  it('refuses several workers while a state role is per process', () => {
    const found = problems(() => loadConfig({ env: { VEIL_SESSION_SECRET: KEY_A }, overrides: { server: { workers: 2 } } }));
    expect(found.join('\n')).toMatch(/server\.workers: 2 workers need shared state; set revocation_backend, replay_backend, idempotency\.backend to sqlite or redis/);
    const shared = loadConfig({
      env: { VEIL_SESSION_SECRET: KEY_A },
      overrides: { server: { workers: 2 }, revocation_backend: 'sqlite', replay_backend: 'sqlite', idempotency: { backend: 'sqlite' }, storage: { sqlite_path: join(dir, 'x.db') } },
    });
    expect(resolveWorkers(shared.config)).toEqual({ workers: 2 });
  });

  it('defaults to one per core only when every store is shared', () => {
    const memory = loadConfig({ env: { VEIL_SESSION_SECRET: KEY_A } });
    const cores = availableParallelism();
    const resolved = resolveWorkers(memory.config);
    expect(resolved.workers).toBe(1);
    if (cores > 1) expect(resolved.note).toMatch(/revocation_backend, replay_backend, idempotency\.backend are memory/);
    const shared = loadConfig({
      env: { VEIL_SESSION_SECRET: KEY_A },
      overrides: { revocation_backend: 'sqlite', replay_backend: 'sqlite', idempotency: { backend: 'sqlite' }, storage: { sqlite_path: join(dir, 'y.db') } },
    });
    expect(resolveWorkers(shared.config).workers).toBe(cores);
  });
});
