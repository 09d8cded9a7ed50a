// Hot reload (interface.md 3 and 4.25, issue 10): the admin policy routes over HTTP (inject),
// atomic swaps, invalid and empty sets keeping the running set (with a failed policy_reloaded
// audit event), Kubernetes-style `..data` symlink swaps picked up by the real fs.watch with a
// manual debounce clock, and key-ring and API-key files rotated without a restart (a removed
// key stops working: threats.md 13).
import { mkdirSync, mkdtempSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppDeps } from '../deps.js';
import { buildTestApp, post, type TestApp } from '../../test/support/harness.js';
import type { Timers } from './watcher.js';
import { ChangeWatcher } from './watcher.js';

const EMAIL = 'reload.canary.44@example.org';
const PHONE = '+1 415 555 0147';
const FILE_CANARY = 'file-content-canary-9d2f';
const KEY_A = 'aa'.repeat(32);
const KEY_B = 'bb'.repeat(32);

function policy(name: string, version: string, action: 'tokenize' | 'redact'): string {
  return `name: ${name}\nversion: "${version}"\nrules:\n  - name: everything\n    match: {}\n    action: ${action}\n${action === 'tokenize' ? '    restore_mode: full\n' : ''}`;
}

/**
 * A directory laid out as the kubelet lays out a ConfigMap or Secret volume: the files live in
 * `..<version>/`, `..data` points at it, and each visible name is a symlink through `..data`.
 * `swap` publishes a new version exactly as the kubelet does (write the new directory, point a
 * temporary link at it, rename the link over `..data`, remove the old directory).
 */
class KubeVolume {
  readonly dir: string;
  #generation = 0;

  constructor(files: Record<string, string>) {
    this.dir = mkdtempSync(join(tmpdir(), 'veil-volume-'));
    const first = this.#write(files);
    symlinkSync(first, join(this.dir, '..data'));
    for (const name of Object.keys(files)) symlinkSync(join('..data', name), join(this.dir, name));
  }

  #write(files: Record<string, string>): string {
    this.#generation += 1;
    const name = `..2026_11_22_${String(this.#generation).padStart(2, '0')}`;
    mkdirSync(join(this.dir, name));
    for (const [file, text] of Object.entries(files)) writeFileSync(join(this.dir, name, file), text);
    return name;
  }

  swap(files: Record<string, string>, visible: readonly string[] = Object.keys(files)): void {
    const previous = readlinkSync(join(this.dir, '..data'));
    const next = this.#write(files);
    symlinkSync(next, join(this.dir, '..data_tmp'));
    renameSync(join(this.dir, '..data_tmp'), join(this.dir, '..data'));
    for (const name of visible) {
      try {
        symlinkSync(join('..data', name), join(this.dir, name));
      } catch {
        // Already linked.
      }
    }
    rmSync(join(this.dir, previous), { recursive: true, force: true });
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Debounce timers the test fires by hand (no sleeping on the quiet period). */
class ManualTimers implements Timers {
  readonly pending = new Map<number, () => void>();
  #next = 1;
  setTimeout(callback: () => void): unknown {
    const id = this.#next++;
    this.pending.set(id, callback);
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  setInterval(): unknown {
    return 0;
  }
  clearInterval(): void {
    // No intervals are used with pollMs 0.
  }
  fire(): void {
    const callbacks = [...this.pending.values()];
    this.pending.clear();
    for (const callback of callbacks) callback();
  }
}

/** Any method through inject; the body parsed when it is JSON, the text kept too. */
async function call(
  app: TestApp['app'],
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; text: string }> {
  const response = await app.inject({
    method,
    url,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { payload: body as object } : {}),
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode, body: parsed, text: response.body };
}

const volumes: KubeVolume[] = [];
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const volume of volumes.splice(0)) volume.remove();
});

function volume(files: Record<string, string>): KubeVolume {
  const created = new KubeVolume(files);
  volumes.push(created);
  return created;
}

async function actions(app: TestApp['app']): Promise<string[]> {
  const response = await post(app, '/v1/transform', { input: `mail ${EMAIL} or call ${PHONE}` });
  expect(response.status).toBe(200);
  return response.body.entities.map((entity: { action_applied: string }) => entity.action_applied);
}

function auditEvents(logs: TestApp['logs'], type: string): Record<string, unknown>[] {
  return logs.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((record) => record.audit === true && record.event_type === type);
}

/** A plain directory of files (sub-directories allowed: `staging/default.yaml`). */
function plainDirectory(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'veil-policies-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  cleanups.push(dir);
  return dir;
}
const cleanups: string[] = [];
afterEach(() => {
  for (const dir of cleanups.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('POST /v1/admin/policy/validate', () => {
  it('validates a directory inside policy.directory and previews the changes without swapping', async () => {
    const root = plainDirectory({
      'default.yaml': policy('default', '1', 'tokenize'),
      'old.yaml': policy('old', '1', 'tokenize'),
      'staging/default.yaml': policy('default', '2', 'redact'),
      'staging/new.yaml': policy('new', '1', 'tokenize'),
    });
    t = await buildTestApp({ overrides: { policy: { directory: root } } });
    const response = await post(t.app, '/v1/admin/policy/validate', { directory: 'staging' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      valid: true,
      errors: [],
      changes: [
        { change: 'modified', policy: 'default', version: '2', previous_version: '1' },
        { change: 'added', policy: 'new', version: '1' },
        { change: 'removed', policy: 'old', previous_version: '1' },
      ],
    });
    // The directory itself ("" or "."): nothing would change.
    for (const directory of ['', '.', './']) expect((await post(t.app, '/v1/admin/policy/validate', { directory })).body).toEqual({ valid: true, errors: [], changes: [] });
    // Nothing was swapped.
    expect(await actions(t.app)).toEqual(['tokenize', 'tokenize']);
    expect(t.deps.policies.registry.names()).toEqual(['default', 'old']);
  });

  it('validates policy files sent inline by the rules of a directory', async () => {
    const root = plainDirectory({ 'default.yaml': policy('default', '1', 'tokenize') });
    t = await buildTestApp({ overrides: { policy: { directory: root } } });
    const response = await post(t.app, '/v1/admin/policy/validate', {
      files: { 'default.yaml': policy('default', '2', 'redact'), 'extra.yml': policy('extra', '1', 'tokenize'), 'default-policy.txt': 'extra\n' },
    });
    expect(response.body).toEqual({
      valid: true,
      errors: [],
      changes: [
        { change: 'modified', policy: 'default', version: '2', previous_version: '1' },
        { change: 'added', policy: 'extra', version: '1' },
        { change: 'default', policy: 'extra', previous_default: 'default' },
      ],
    });
    const duplicate = await post(t.app, '/v1/admin/policy/validate', { files: { 'a.yaml': policy('same', '1', 'tokenize'), 'b.yaml': policy('same', '2', 'tokenize') } });
    expect(duplicate.body.valid).toBe(false);
    expect(duplicate.body.errors).toEqual([{ file: 'b.yaml', line: 1, field: 'name', message: 'duplicate policy name (also defined in a.yaml)' }]);
    // Names that are not policy files, an empty map, and both forms at once are refused.
    for (const body of [{ files: { '../x.yaml': 'x' } }, { files: { 'x.json': 'x' } }, { files: {} }, { files: { 'a.yaml': 'x' }, directory: '' }, {}]) {
      const refused = await post(t.app, '/v1/admin/policy/validate', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.code).toBe('VEIL_VALIDATION_FAILED');
    }
    expect(t.deps.policies.registry.names()).toEqual(['default']);
  });

  it('lists file, line and field of every problem and never echoes file contents', async () => {
    const root = plainDirectory({
      'default.yaml': policy('default', '1', 'tokenize'),
      'broken/default.yaml': `name: default\nversion: "1"\nrules:\n  - name: r\n    match: {}\n    action: ${FILE_CANARY}\n`,
      'broken/syntax.yaml': `name: [${FILE_CANARY}\n  : : :\n`,
    });
    t = await buildTestApp({ overrides: { policy: { directory: root } } });
    for (const body of [{ directory: 'broken' }, { files: { 'default.yaml': `name: default\nversion: "1"\nrules:\n  - name: r\n    match: {}\n    action: ${FILE_CANARY}\n`, 'syntax.yaml': `name: [${FILE_CANARY}\n  : : :\n` } }]) {
      const response = await post(t.app, '/v1/admin/policy/validate', body);
      expect(response.status).toBe(200);
      expect(response.body.valid).toBe(false);
      expect(response.body.changes).toEqual([]);
      expect(response.body.errors.length).toBeGreaterThanOrEqual(2);
      for (const error of response.body.errors) expect(Object.keys(error).sort()).toEqual(expect.arrayContaining(['field', 'file', 'message']));
      expect(response.body.errors.map((error: { field: string }) => error.field)).toEqual(expect.arrayContaining(['rules[0].action', '(yaml)']));
      expect(JSON.stringify(response.body)).not.toContain(FILE_CANARY);
    }
    expect(t.logs.text()).not.toContain(FILE_CANARY);
  });

  it('never reads outside policy.directory: absolute paths, .. segments and links leading out are refused', async () => {
    const outside = plainDirectory({ 'secret.yaml': `name: [${FILE_CANARY}\n`, 'default.yaml': policy('default', '1', 'tokenize') });
    const root = plainDirectory({ 'default.yaml': policy('default', '1', 'tokenize'), 'inner/default.yaml': policy('default', '1', 'tokenize') });
    symlinkSync(outside, join(root, 'escape'));
    mkdirSync(join(root, 'mixed'));
    writeFileSync(join(root, 'mixed', 'default.yaml'), policy('default', '1', 'tokenize'));
    symlinkSync(join(outside, 'secret.yaml'), join(root, 'mixed', 'linked.yaml'));
    t = await buildTestApp({ overrides: { policy: { directory: root } } });
    for (const directory of [outside, '/etc', '..', '../', 'inner/../..', `../${outside.split('/').pop() ?? ''}`, 'escape', 'escape/', 'inner\\..\\..', 'C:/x', '/tmp/a\u0000b', 'missing']) {
      const response = await post(t.app, '/v1/admin/policy/validate', { directory });
      expect(response.status, directory).toBe(400);
      expect(response.body.code).toBe('VEIL_VALIDATION_FAILED');
      expect(response.body.error).toMatch(/^directory: /);
    }
    // A file linked from outside is reported and not read.
    const mixed = await post(t.app, '/v1/admin/policy/validate', { directory: 'mixed' });
    expect(mixed.body).toEqual({ valid: false, errors: [{ file: 'linked.yaml', field: '(file)', message: 'is a link leading outside policy.directory; not read' }], changes: [] });
    expect(JSON.stringify(mixed.body)).not.toContain(FILE_CANARY);
    expect((await post(t.app, '/v1/admin/policy/validate', { directory: 'inner' })).body.valid).toBe(true);
    expect((await post(t.app, '/v1/admin/policy/validate', { directory: '', extra: 1 })).status).toBe(400);
    expect(t.logs.text()).not.toContain(FILE_CANARY);
  });

  it('without policy.directory, only inline files can be validated', async () => {
    t = await buildTestApp();
    const response = await post(t.app, '/v1/admin/policy/validate', { directory: '' });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^directory: policy.directory is not configured/);
    expect((await post(t.app, '/v1/admin/policy/validate', { files: { 'p.yaml': policy('p', '1', 'tokenize') } })).body.valid).toBe(true);
  });

  it('needs the admin scope; a tenant-bound admin is scoped to its tenant', async () => {
    const root = plainDirectory({ 'default.yaml': policy('default', '1', 'tokenize'), 'hidden.yaml': policy('hidden', '1', 'tokenize') });
    const tenants = plainDirectory({ 'acme.json': JSON.stringify({ format: 'veil.tenant/v1', generation: 1, tenant_id: 'acme', policies: ['default'] }) });
    t = await buildTestApp({
      overrides: {
        policy: { directory: root },
        tenants_directory: tenants,
        auth: {
          mode: 'api_key',
          api_keys: [
            { key: 'ak-ops-transform-0123456789', identity: 'svc', scopes: ['transform'] },
            { key: 'ak-ops-admin-0123456789ab', identity: 'ops', scopes: ['admin'] },
            { key: 'ak-acme-admin-0123456789a', identity: 'acme-ops', tenant_id: 'acme', scopes: ['admin'] },
          ],
        },
        audit: { allow_ephemeral: true },
      },
    });
    const platform = { 'x-api-key': 'ak-ops-admin-0123456789ab' };
    const tenantAdmin = { 'x-api-key': 'ak-acme-admin-0123456789a' };
    for (const [method, url] of [
      ['POST', '/v1/admin/policy/validate'],
      ['POST', '/v1/admin/policy/reload'],
      ['GET', '/v1/diagnostics'],
      ['GET', '/metrics'],
    ] as const) {
      const body = url.endsWith('validate') ? { directory: '' } : undefined;
      expect((await call(t.app, method, url, body, { 'x-api-key': 'ak-ops-transform-0123456789' })).status).toBe(403);
      expect((await call(t.app, method, url, body)).status).toBe(401);
      expect((await call(t.app, method, url, body, platform)).status).toBe(200);
    }
    // Platform operations are refused to the tenant admin with VEIL_SCOPE_DENIED.
    for (const [method, url, body] of [
      ['POST', '/v1/admin/policy/reload', undefined],
      ['GET', '/metrics', undefined],
      ['POST', '/v1/admin/policy/validate', { directory: '' }],
    ] as const) {
      const refused = await call(t.app, method, url, body, tenantAdmin);
      expect(refused.status, url).toBe(403);
      expect(refused.body.code).toBe('VEIL_SCOPE_DENIED');
    }
    // Inline validation works for it, and the preview never names a policy it may not use.
    const preview = await call(t.app, 'POST', '/v1/admin/policy/validate', { files: { 'default.yaml': policy('default', '2', 'tokenize') } }, tenantAdmin);
    expect(preview.body).toEqual({ valid: true, errors: [], changes: [{ change: 'modified', policy: 'default', version: '2', previous_version: '1' }] });
    expect(preview.text).not.toContain('hidden');
    const platformPreview = await call(t.app, 'POST', '/v1/admin/policy/validate', { files: { 'default.yaml': policy('default', '2', 'tokenize') } }, platform);
    expect(platformPreview.body.changes).toContainEqual({ change: 'removed', policy: 'hidden', previous_version: '1' });
    // Diagnostics: the platform view has everything, the tenant view only its own tenant.
    const full = await call(t.app, 'GET', '/v1/diagnostics', undefined, platform);
    expect(full.body.scope).toBe('platform');
    expect(full.body.api_keys.count).toBe(3);
    expect(full.body.policies.map((entry: { name: string }) => entry.name)).toEqual(['default', 'hidden']);
    const own = await call(t.app, 'GET', '/v1/diagnostics', undefined, tenantAdmin);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ scope: 'tenant', tenant: 'acme', default_policy: 'default', key_rings: [], tenant_settings: { tenants: [expect.objectContaining({ tenant: 'acme' })] } });
    expect(own.body.policies.map((entry: { name: string }) => entry.name)).toEqual(['default']);
    for (const field of ['api_keys', 'reloads', 'policy_set_hash', 'key_ring_problems']) expect(own.body, field).not.toHaveProperty(field);
    expect(own.text).not.toContain('hidden');
  });
});

describe('POST /v1/admin/policy/reload', () => {
  it('swaps the new set in atomically and reports the changes', async () => {
    const mount = volume({ 'default.yaml': policy('default', '1', 'tokenize') });
    t = await buildTestApp({ overrides: { policy: { directory: mount.dir } } });
    expect(await actions(t.app)).toEqual(['tokenize', 'tokenize']);
    const before = t.deps.policies.registry;
    mount.swap({ 'default.yaml': policy('default', '2', 'redact'), 'extra.yaml': policy('extra', '1', 'tokenize') });
    const response = await call(t.app, 'POST', '/v1/admin/policy/reload');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      reloaded: true,
      changes: [
        { change: 'modified', policy: 'default', version: '2', previous_version: '1' },
        { change: 'added', policy: 'extra', version: '1' },
      ],
    });
    expect(await actions(t.app)).toEqual(['redact', 'redact']);
    // The old snapshot is untouched: a request holding it keeps a consistent view.
    expect(before.get('default').compiled.policy.version).toBe('1');
    expect(before.names()).toEqual(['default']);
    const diagnostics = await call(t.app, 'GET', '/v1/diagnostics');
    expect(diagnostics.body.last_policy_reload_unix).toBeGreaterThan(0);
    expect(diagnostics.body.policies.map((entry: { name: string }) => entry.name)).toEqual(['default', 'extra']);
    // One event for the reload: the admin request itself, with who asked.
    const events = auditEvents(t.logs, 'policy_reloaded');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ route: 'POST /v1/admin/policy/reload', status: 200, identity: 'dev' });
    expect(events[0]!.failure_code).toBeUndefined();
  });

  it('keeps the running set when the new one is invalid, and audits the failure', async () => {
    const mount = volume({ 'default.yaml': policy('default', '1', 'tokenize') });
    t = await buildTestApp({ overrides: { policy: { directory: mount.dir } } });
    mount.swap({ 'default.yaml': `name: default\nversion: "2"\nrules: [{name: r, match: {}, action: ${FILE_CANARY}}]\n` });
    const response = await call(t.app, 'POST', '/v1/admin/policy/reload');
    expect(response.status).toBe(200);
    expect(response.body.reloaded).toBe(false);
    expect(response.body.changes).toEqual([]);
    expect(response.body.errors[0]).toMatchObject({ field: 'rules[0].action' });
    expect(JSON.stringify(response.body)).not.toContain(FILE_CANARY);
    expect(await actions(t.app)).toEqual(['tokenize', 'tokenize']);
    const events = auditEvents(t.logs, 'policy_reloaded');
    expect(events).toHaveLength(1);
    const event = events[0];
    expect(event).toMatchObject({ event_type: 'policy_reloaded', tenant_id: null, route: 'POST /v1/admin/policy/reload', failure_code: 'VEIL_VALIDATION_FAILED' });
    expect(String(event!.failure_reason)).toMatch(/1 problem; trigger api/);
    expect(t.logs.text()).not.toContain(FILE_CANARY);
    // Health says the files on disk are broken while the old set keeps serving.
    const health = await call(t.app, 'GET', '/v1/health');
    expect(health.body.status).toBe('degraded');
    expect(health.body.components.policies.status).toBe('degraded');
    expect((await call(t.app, 'GET', '/readyz')).status).toBe(200);
    const metrics = await call(t.app, 'GET', '/metrics');
    expect(metrics.text).toContain('veil_reloads_total{source="policies",result="failure"} 1');
  });

  it('refuses an empty set outside dev mode and falls back to the built-in default in dev', async () => {
    const mount = volume({ 'strict.yaml': policy('strict', '1', 'redact') });
    t = await buildTestApp({
      overrides: {
        policy: { directory: mount.dir },
        auth: { mode: 'api_key', api_keys: [{ key: 'ak-ops-admin-0123456789ab', identity: 'ops', scopes: ['admin'] }] },
        audit: { allow_ephemeral: true },
      },
    });
    const admin = { 'x-api-key': 'ak-ops-admin-0123456789ab' };
    mount.swap({}, []);
    rmSync(mount.path('strict.yaml'));
    const refused = await call(t.app, 'POST', '/v1/admin/policy/reload', undefined, admin);
    expect(refused.body.reloaded).toBe(false);
    expect(refused.body.errors[0].message).toMatch(/empty policy set is refused outside dev mode/);
    expect(t.deps.policies.registry.names()).toEqual(['strict']);
    await t.close();

    const dev = volume({ 'strict.yaml': policy('strict', '1', 'redact') });
    t = await buildTestApp({ overrides: { policy: { directory: dev.dir } } });
    rmSync(dev.path('strict.yaml'));
    const reloaded = await call(t.app, 'POST', '/v1/admin/policy/reload');
    expect(reloaded.body.reloaded).toBe(true);
    expect(t.deps.policies.registry.names()).toEqual(['default']);
  });

  it('answers reloaded:false when no policy directory is configured, and refuses a body', async () => {
    t = await buildTestApp();
    const response = await call(t.app, 'POST', '/v1/admin/policy/reload');
    expect(response.body).toMatchObject({ reloaded: false, errors: [{ field: 'policy.directory' }] });
    expect((await post(t.app, '/v1/admin/policy/reload', {})).status).toBe(200);
    expect((await post(t.app, '/v1/admin/policy/reload', { directory: '/tmp' })).status).toBe(400);
  });

  it('never lets one request see two policy sets, however swaps interleave', async () => {
    const mount = volume({ 'default.yaml': policy('default', '1', 'tokenize') });
    t = await buildTestApp({ overrides: { policy: { directory: mount.dir } } });
    const tokenizing = t.deps.policies.registry;
    mount.swap({ 'default.yaml': policy('default', '2', 'redact') });
    t.deps.reload.reloadPolicies('api');
    const redacting = t.deps.policies.registry;
    await t.close();
    // The worst case for a reader: the set changes between ANY two reads of the holder. A
    // request that read it twice would mix the sets; one snapshot per request never does.
    let reads = 0;
    const flipping = {
      get registry() {
        reads += 1;
        return reads % 2 === 0 ? tokenizing : redacting;
      },
      set registry(_value) {
        // Reloads are not under test here.
      },
    };
    t = await buildTestApp({
      overrides: { policy: { directory: mount.dir } },
      mutateDeps: (deps) => Object.defineProperties({}, { ...Object.getOwnPropertyDescriptors(deps), policies: { value: flipping, enumerable: true } }) as AppDeps,
    });
    const seen = new Set<string>();
    for (let index = 0; index < 20; index += 1) {
      const batch = await post(t.app, '/v1/batch/transform', { items: [{ text: `a ${EMAIL}` }, { text: `b ${PHONE}` }, { text: `c ${EMAIL} ${PHONE}` }] });
      expect(batch.status).toBe(200);
      expect(batch.body.results.filter((result: { error?: unknown }) => result.error !== undefined)).toEqual([]);
      // Batch results carry only safe text: a token shows tokenize, the marker shows redact.
      const applied = new Set(
        batch.body.results.flatMap((result: { safe_text: string }) => [
          ...(result.safe_text.includes('{{') ? ['tokenize'] : []),
          ...(result.safe_text.includes('[REDACTED') ? ['redact'] : []),
        ]),
      );
      expect(applied.size).toBe(1);
      seen.add([...applied][0] as string);
      const single = await post(t.app, '/v1/transform', { input: `mail ${EMAIL} or call ${PHONE}` });
      expect(single.status).toBe(200);
      expect(new Set(single.body.entities.map((entity: { action_applied: string }) => entity.action_applied)).size).toBe(1);
    }
    expect(reads).toBeGreaterThan(40);
    expect(seen).toEqual(new Set(['tokenize', 'redact']));
  });
});

describe('policy.watch on a Kubernetes-style volume', () => {
  it('reloads once, a quiet period after a ..data swap; a broken swap keeps the running set', async () => {
    const mount = volume({ 'default.yaml': policy('default', '1', 'tokenize') });
    t = await buildTestApp({ overrides: { policy: { directory: mount.dir, watch: true, watch_debounce_ms: 2000 } } });
    const timers = new ManualTimers();
    const problems: unknown[] = [];
    t.deps.reload.start((_source, error) => problems.push(error), { timers, pollMs: 0 });
    const watcher = t.deps.reload.watchers.find((entry) => entry.name === 'policies')!;

    mount.swap({ 'default.yaml': policy('default', '2', 'redact') });
    await vi.waitFor(() => expect(watcher.pending).toBe(true), { timeout: 5000 });
    // Still the old set until the quiet period ends.
    expect(await actions(t.app)).toEqual(['tokenize', 'tokenize']);
    timers.fire();
    await vi.waitFor(() => expect(t!.deps.policies.registry.get('default').compiled.policy.version).toBe('2'));
    expect(await actions(t.app)).toEqual(['redact', 'redact']);
    expect(auditEvents(t.logs, 'policy_reloaded')).toHaveLength(1);

    mount.swap({ 'default.yaml': 'name: default\nversion: "3"\nrules: not-a-list\n' });
    await vi.waitFor(() => expect(watcher.pending).toBe(true), { timeout: 5000 });
    timers.fire();
    await vi.waitFor(() => expect(t!.deps.reload.lastOutcome('policies')?.ok).toBe(false));
    expect(t.deps.policies.registry.get('default').compiled.policy.version).toBe('2');
    const failures = auditEvents(t.logs, 'policy_reloaded').filter((event) => event.failure_code !== undefined);
    expect(failures).toHaveLength(1);
    expect(String(failures[0]!.failure_reason)).toMatch(/trigger watch/);
    expect(problems).toEqual([]);
  });

  it('debounces a burst of changes into one reload', () => {
    const timers = new ManualTimers();
    let reloads = 0;
    const watcher = new ChangeWatcher({
      name: 'test',
      paths: [],
      debounceMs: 2000,
      pollMs: 0,
      stamp: () => '',
      reload: () => {
        reloads += 1;
      },
      onError: () => undefined,
      timers,
    });
    watcher.start();
    for (let index = 0; index < 10; index += 1) watcher.notify();
    expect(timers.pending.size).toBe(1);
    timers.fire();
    expect(reloads).toBe(1);
    watcher.close();
    watcher.notify();
    expect(timers.pending.size).toBe(0);
  });
});

describe('key-ring file rotation without a restart', () => {
  const ring = (current: string, keys: Record<string, string>): string =>
    `current_kid: ${current}\nkeys:\n${Object.entries(keys)
      .map(([kid, secret]) => `  - {kid: ${kid}, secret: "${secret}"}`)
      .join('\n')}\n`;

  it('adds a key, switches current_kid, retires the old key; diagnostics report each generation', async () => {
    const mount = volume({ 'keyring.yaml': ring('a', { a: KEY_A }) });
    t = await buildTestApp({ env: { VEIL_SESSION_SECRET: '' }, overrides: { session: { keyring_file: mount.path('keyring.yaml') } } });
    const timers = new ManualTimers();
    t.deps.reload.start(() => undefined, { timers, pollMs: 0 });
    const watcher = t.deps.reload.watchers.find((entry) => entry.name === 'keyring')!;
    const generation = async (): Promise<Record<string, unknown>> => (await call(t!.app, 'GET', '/v1/diagnostics')).body.key_rings[0];
    const rotate = async (text: string): Promise<void> => {
      mount.swap({ 'keyring.yaml': text });
      await vi.waitFor(() => expect(watcher.pending).toBe(true), { timeout: 5000 });
      timers.fire();
    };

    const first = await generation();
    expect(first).toMatchObject({ tenant: null, current_kid: 'a', kids: ['a'], source: 'file' });
    const old = await post(t.app, '/v1/transform', { input: `mail ${EMAIL}` });
    expect(old.body.session_state).toMatch(/^v1\.a\./);

    // Staging: add b, current stays a.
    await rotate(ring('a', { a: KEY_A, b: KEY_B }));
    await vi.waitFor(async () => expect((await generation()).kids).toEqual(['a', 'b']));
    const staged = await generation();
    expect(staged.generation).not.toBe(first.generation);
    expect((await post(t.app, '/v1/transform', { input: 'x' })).body.session_state).toMatch(/^v1\.a\./);

    // Switching: current b; blobs under a still open.
    await rotate(ring('b', { a: KEY_A, b: KEY_B }));
    await vi.waitFor(async () => expect((await generation()).current_kid).toBe('b'));
    expect((await post(t.app, '/v1/transform', { input: 'x' })).body.session_state).toMatch(/^v1\.b\./);
    expect((await post(t.app, '/v1/rehydrate', { output: old.body.entities[0].token, session_state: old.body.session_state })).body.restored_text).toBe(EMAIL);

    // Retiring: a removed; its blobs no longer open.
    await rotate(ring('b', { b: KEY_B }));
    await vi.waitFor(async () => expect((await generation()).kids).toEqual(['b']));
    const expired = await post(t.app, '/v1/rehydrate', { output: old.body.entities[0].token, session_state: old.body.session_state });
    expect(expired.status).toBe(410);

    // A broken file keeps the ring in force.
    await rotate('current_kid: c\nkeys: []\n');
    await vi.waitFor(() => expect(t!.deps.reload.lastOutcome('keyring')?.ok).toBe(false));
    expect((await generation()).kids).toEqual(['b']);
    expect((await call(t.app, 'GET', '/v1/health')).body.components.session.status).toBe('degraded');
    // No key material in logs, diagnostics or audit events.
    for (const key of [KEY_A, KEY_B]) {
      expect(t.logs.text()).not.toContain(key);
      expect(JSON.stringify(await call(t.app, 'GET', '/v1/diagnostics'))).not.toContain(key);
    }
  });
});

describe('API-key file rotation without a restart', () => {
  const keys = (entries: { key: string; identity: string; scopes: string[] }[]): string => JSON.stringify({ api_keys: entries });
  const OLD = 'ak-rotating-old-0123456789';
  const NEW = 'ak-rotating-new-0123456789';

  it('a removed key stops working after the reload; a new key starts working', async () => {
    const mount = volume({ 'api-keys.json': keys([{ key: OLD, identity: 'svc-old', scopes: ['transform', 'admin'] }]) });
    t = await buildTestApp({ overrides: { auth: { mode: 'api_key', api_keys_file: mount.path('api-keys.json') }, audit: { allow_ephemeral: true } } });
    expect((await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': OLD })).status).toBe(200);
    expect((await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': NEW })).status).toBe(401);
    const before = (await call(t.app, 'GET', '/v1/diagnostics', undefined, { 'x-api-key': OLD })).body.api_keys;
    expect(before).toMatchObject({ count: 1, source: 'file' });

    mount.swap({ 'api-keys.json': keys([{ key: NEW, identity: 'svc-new', scopes: ['transform', 'admin'] }]) });
    t.deps.reload.reloadApiKeys('watch');
    const removed = await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': OLD });
    expect(removed.status).toBe(401);
    expect(removed.body.code).toBe('VEIL_AUTH_INVALID');
    expect((await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': NEW })).status).toBe(200);
    const after = (await call(t.app, 'GET', '/v1/diagnostics', undefined, { 'x-api-key': NEW })).body.api_keys;
    expect(after.generation).not.toBe(before.generation);

    // An invalid file (a key too short, a duplicate) keeps the running list.
    mount.swap({ 'api-keys.json': keys([{ key: 'short', identity: 'x', scopes: [] }]) });
    t.deps.reload.reloadApiKeys('watch');
    expect((await post(t.app, '/v1/transform', { input: 'x' }, { 'x-api-key': NEW })).status).toBe(200);
    expect(t.logs.text()).not.toContain(OLD);
    expect(t.logs.text()).not.toContain(NEW);
    expect(t.logs.text()).not.toContain('"short"');
  });

  it('refuses to start with an unusable API-key file', async () => {
    const mount = volume({ 'api-keys.yaml': '- {key: tiny, identity: x}\n' });
    await expect(buildTestApp({ overrides: { auth: { mode: 'api_key', api_keys_file: mount.path('api-keys.yaml') }, audit: { allow_ephemeral: true } } })).rejects.toThrow(
      /api_keys_file .*\[0\]\.key: must NOT have fewer than 16 characters/,
    );
    const level = volume({ 'api-keys.yaml': '- {key: ak-file-level-0123456789, identity: x, access_level: top_secret}\n' });
    await expect(buildTestApp({ overrides: { auth: { mode: 'api_key', api_keys_file: level.path('api-keys.yaml') }, audit: { allow_ephemeral: true } } })).rejects.toThrow(
      /api_keys_file .*entry 0: access_level: must be one of rag.classification_levels/,
    );
  });
});
