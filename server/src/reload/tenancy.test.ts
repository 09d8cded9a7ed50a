// The server side of the Kubernetes path (issue 11), through HTTP (inject): per-tenant session
// key rings from session.keyring_directory (a tenant's blobs sealed and opened under its own
// ring, a ring-less tenant and untenanted callers under the platform ring, a three-phase
// rotation through `..data` swaps, the last good ring kept for a broken file), API keys from
// the operator's digest-only files (a removed key refused after the reload: threats.md 13),
// tenant settings (allowed policies, live rate limits) and the default-policy marker. Every
// directory is laid out as the kubelet lays out a Secret or ConfigMap volume.
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyDigest, serializeApiKeysFile, serializeKeyRingFile, serializeTenantSettingsFile, type ApiKeyFileEntry } from '@veil/common';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KeyRing } from '../domain/seal/index.js';
import { apiKeyOverrides } from '../../test/support/auth.js';
import { buildTestApp, post, send, type TestApp } from '../../test/support/harness.js';
import { ringGeneration } from './keyring.js';
import type { ReloadSourceName } from './manager.js';
import type { Timers } from './watcher.js';

const EMAIL = 'tenancy.canary.17@example.org';
const SECRET_A1 = 'a1'.repeat(32);
const SECRET_A2 = 'a2'.repeat(32);
const SECRET_B1 = 'b1'.repeat(32);
const ACME_KEY = 'acme-app-key-0123456789abcdef';
const ACME_OLD_KEY = 'acme-old-key-0123456789abcdef';
const BETA_KEY = 'beta-app-key-0123456789abcdef';
const GAMMA_KEY = 'gamma-app-key-0123456789abcdef';
const DELTA_KEY = 'delta-app-key-0123456789abcdef';
const PLATFORM_KEY = 'platform-key-0123456789abcdef';
const ADMIN_KEY = 'admin-key-0123456789abcdef-xyz';

/** A kubelet-style volume: files in `..<n>/`, `..data` -> it, visible names linked through it. */
class Volume {
  readonly dir = mkdtempSync(join(tmpdir(), 'veil-tenancy-'));
  #version = 0;

  constructor(files: Record<string, string>) {
    this.publish(files);
  }

  /** Publish a new version as the kubelet does: swap `..data`, then fix the visible links. */
  publish(files: Record<string, string>): void {
    this.#version += 1;
    const payload = `..v${this.#version}`;
    mkdirSync(join(this.dir, payload));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(this.dir, payload, name), text);
    let previous: string | undefined;
    try {
      previous = readlinkSync(join(this.dir, '..data'));
    } catch {
      previous = undefined;
    }
    symlinkSync(payload, join(this.dir, '..data_tmp'));
    renameSync(join(this.dir, '..data_tmp'), join(this.dir, '..data'));
    for (const name of Object.keys(files)) {
      try {
        symlinkSync(join('..data', name), join(this.dir, name));
      } catch {
        // Already linked.
      }
    }
    for (const name of readdirSync(this.dir)) {
      if (!name.startsWith('.') && !Object.hasOwn(files, name)) unlinkSync(join(this.dir, name));
    }
    if (previous !== undefined) rmSync(join(this.dir, previous), { recursive: true, force: true });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Debounce timers fired by hand. */
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
    // pollMs 0: no intervals.
  }
  fire(): void {
    const callbacks = [...this.pending.values()];
    this.pending.clear();
    for (const callback of callbacks) callback();
  }
}

function ringFile(tenant: string, generation: number, current: string, keys: Record<string, string>): string {
  return serializeKeyRingFile({ tenant_id: tenant, generation, current_kid: current, keys: Object.entries(keys).map(([kid, secret]) => ({ kid, secret })) });
}

function ringGenerationOf(current: string, keys: Record<string, string>): string {
  return ringGeneration(new KeyRing(current, Object.entries(keys).map(([kid, secret]) => ({ kid, key: Buffer.from(secret, 'hex') }))));
}

function keyEntry(key: string, identity: string, tenant: string | undefined, scopes: ApiKeyFileEntry['scopes']): ApiKeyFileEntry {
  return { identity, ...(tenant !== undefined ? { tenant_id: tenant } : {}), key_sha256: apiKeyDigest(key), scopes };
}

function policyYaml(name: string): string {
  return `name: ${name}\nversion: "1"\nrules:\n  - name: everything\n    match: {}\n    action: tokenize\n    restore_mode: full\n`;
}

const volumes: Volume[] = [];
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const volume of volumes.splice(0)) volume.remove();
});

function volume(files: Record<string, string>): Volume {
  const created = new Volume(files);
  volumes.push(created);
  return created;
}

/** Start the watchers with hand-fired timers; `publish` swaps a volume and runs the reload. */
function watching(app: TestApp): { publish: (target: Volume, files: Record<string, string>, source: ReloadSourceName) => Promise<void> } {
  const timers = new ManualTimers();
  app.deps.reload.start(() => undefined, { timers, pollMs: 0 });
  return {
    publish: async (target, files, source) => {
      const before = app.deps.reload.lastOutcome(source);
      const watcher = app.deps.reload.watchers.find((entry) => entry.name === source);
      target.publish(files);
      if (watcher !== undefined) await vi.waitFor(() => expect(watcher.pending).toBe(true), { timeout: 5000 });
      timers.fire();
      await vi.waitFor(() => expect(app.deps.reload.lastOutcome(source)).not.toBe(before));
    },
  };
}

const auth = (key: string): Record<string, string> => ({ 'x-api-key': key });

async function diagnostics(app: TestApp): Promise<Record<string, any>> {
  const response = await send(app.app, { method: 'GET', url: '/v1/diagnostics', headers: auth(ADMIN_KEY) });
  expect(response.status).toBe(200);
  return response.body as Record<string, any>;
}

function tenantRing(body: Record<string, any>, tenant: string | null): Record<string, any> | undefined {
  return (body.key_rings as Record<string, any>[]).find((ring) => ring.tenant === tenant);
}

const TENANT_KEYS = [
  { key: ACME_KEY, identity: 'acme-app', tenant_id: 'acme', scopes: ['transform', 'rehydrate', 'session', 'detect', 'policy'] },
  { key: BETA_KEY, identity: 'beta-app', tenant_id: 'beta', scopes: ['transform', 'rehydrate', 'detect', 'policy'] },
  { key: GAMMA_KEY, identity: 'gamma-app', tenant_id: 'gamma', scopes: ['transform', 'rehydrate', 'detect', 'policy'] },
  { key: DELTA_KEY, identity: 'delta-app', tenant_id: 'delta', scopes: ['transform', 'rehydrate', 'detect', 'policy'] },
  { key: PLATFORM_KEY, identity: 'platform-app', scopes: ['transform', 'rehydrate'] },
  { key: ADMIN_KEY, identity: 'admin', scopes: ['admin'] },
];

describe('per-tenant session key rings (session.keyring_directory)', () => {
  it('seals a tenant under its own ring, a ring-less tenant and untenanted callers under the platform ring, and never crosses tenants', async () => {
    const rings = volume({ 'acme.json': ringFile('acme', 1, 'a1', { a1: SECRET_A1 }), 'beta-corp.json': ringFile('beta', 3, 'b1', { b1: SECRET_B1 }) });
    // A small offload threshold sends large inputs to the worker threads, which get the ring per call.
    t = await buildTestApp({ overrides: { ...apiKeyOverrides(TENANT_KEYS), 'session.keyring_directory': rings.dir, 'transform.offload_threshold_bytes': 256 } });
    const platformKid = t.deps.reload.keyRingFor(null).currentKid;

    const acme = await post(t.app, '/v1/transform', { input: `mail ${EMAIL}` }, auth(ACME_KEY));
    expect(acme.status).toBe(200);
    expect(acme.body.session_state).toMatch(/^v1\.a1\./);
    const token = acme.body.entities[0].token as string;
    const restored = await post(t.app, '/v1/rehydrate', { output: token, session_state: acme.body.session_state }, auth(ACME_KEY));
    expect(restored.body.restored_text).toBe(EMAIL);
    // Another tenant (own ring) and a platform caller cannot open it.
    expect((await post(t.app, '/v1/rehydrate', { output: token, session_state: acme.body.session_state }, auth(BETA_KEY))).status).toBe(410);
    expect((await post(t.app, '/v1/rehydrate', { output: token, session_state: acme.body.session_state }, auth(PLATFORM_KEY))).status).toBe(410);

    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(BETA_KEY))).body.session_state).toMatch(/^v1\.b1\./);
    // gamma has no ring file: the platform ring, still bound to gamma.
    const gamma = await post(t.app, '/v1/transform', { input: `mail ${EMAIL}` }, auth(GAMMA_KEY));
    expect(gamma.body.session_state.startsWith(`v1.${platformKid}.`)).toBe(true);
    expect((await post(t.app, '/v1/rehydrate', { output: gamma.body.entities[0].token, session_state: gamma.body.session_state }, auth(PLATFORM_KEY))).status).toBe(410);
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(PLATFORM_KEY))).body.session_state.startsWith(`v1.${platformKid}.`)).toBe(true);

    // The worker-thread path seals and opens under the same tenant ring.
    const large = `${'lorem ipsum '.repeat(40)} mail ${EMAIL}`;
    const offloaded = await post(t.app, '/v1/transform', { input: large }, auth(ACME_KEY));
    expect(offloaded.body.session_state).toMatch(/^v1\.a1\./);
    const offloadedOutput = `${'model output '.repeat(40)} ${offloaded.body.entities[0].token as string}`;
    const reopened = await post(t.app, '/v1/rehydrate', { output: offloadedOutput, session_state: offloaded.body.session_state }, auth(ACME_KEY));
    expect(reopened.status).toBe(200);
    expect(reopened.body.restored_text).toContain(EMAIL);
    expect((await post(t.app, '/v1/rehydrate', { output: offloadedOutput, session_state: offloaded.body.session_state }, auth(BETA_KEY))).status).toBe(410);

    // Diagnostics: the platform ring under null, then each tenant ring with the generation the
    // operator computes, the file and its own counter; never key material.
    const body = await diagnostics(t);
    expect(tenantRing(body, null)).toMatchObject({ current_kid: platformKid, source: 'config' });
    expect(tenantRing(body, 'acme')).toEqual({
      tenant: 'acme',
      current_kid: 'a1',
      kids: ['a1'],
      generation: ringGenerationOf('a1', { a1: SECRET_A1 }),
      source: 'directory',
      loaded_at_unix: expect.any(Number),
      file: 'acme.json',
      file_generation: 1,
    });
    expect(tenantRing(body, 'beta')).toMatchObject({ file: 'beta-corp.json', file_generation: 3, generation: ringGenerationOf('b1', { b1: SECRET_B1 }) });
    expect(body.key_ring_problems).toEqual([]);
    const text = JSON.stringify(body) + t.logs.text();
    for (const secret of [SECRET_A1, SECRET_B1]) expect(text).not.toContain(secret);
  });

  it("rotates one tenant's ring through ..data swaps while the other is untouched, and keeps the last good ring of a broken file", async () => {
    const beta = ringFile('beta', 1, 'b1', { b1: SECRET_B1 });
    const rings = volume({ 'acme.json': ringFile('acme', 1, 'a1', { a1: SECRET_A1 }), 'beta.json': beta });
    t = await buildTestApp({ overrides: { ...apiKeyOverrides(TENANT_KEYS), 'session.keyring_directory': rings.dir } });
    const { publish } = watching(t);
    const betaBefore = tenantRing(await diagnostics(t), 'beta');
    const old = await post(t.app, '/v1/transform', { input: `mail ${EMAIL}` }, auth(ACME_KEY));
    const oldToken = old.body.entities[0].token as string;
    const acmeRing = async (): Promise<Record<string, any>> => tenantRing(await diagnostics(t!), 'acme')!;

    // Staging: a2 added, a1 still current.
    await publish(rings, { 'acme.json': ringFile('acme', 2, 'a1', { a1: SECRET_A1, a2: SECRET_A2 }), 'beta.json': beta }, 'keyring');
    expect(await acmeRing()).toMatchObject({ kids: ['a1', 'a2'], current_kid: 'a1', file_generation: 2, generation: ringGenerationOf('a1', { a1: SECRET_A1, a2: SECRET_A2 }) });
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(ACME_KEY))).body.session_state).toMatch(/^v1\.a1\./);
    // The other tenant's ring was not reloaded (same generation, same load time).
    expect(tenantRing(await diagnostics(t), 'beta')).toEqual(betaBefore);

    // Switching: a2 seals; a1 blobs still open.
    await publish(rings, { 'acme.json': ringFile('acme', 3, 'a2', { a1: SECRET_A1, a2: SECRET_A2 }), 'beta.json': beta }, 'keyring');
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(ACME_KEY))).body.session_state).toMatch(/^v1\.a2\./);
    expect((await post(t.app, '/v1/rehydrate', { output: oldToken, session_state: old.body.session_state }, auth(ACME_KEY))).body.restored_text).toBe(EMAIL);

    // Retiring: a1 removed; its blobs no longer open.
    await publish(rings, { 'acme.json': ringFile('acme', 4, 'a2', { a2: SECRET_A2 }), 'beta.json': beta }, 'keyring');
    expect((await post(t.app, '/v1/rehydrate', { output: oldToken, session_state: old.body.session_state }, auth(ACME_KEY))).status).toBe(410);
    const current = await post(t.app, '/v1/transform', { input: `mail ${EMAIL}` }, auth(ACME_KEY));

    // A broken acme file and a broken new file: acme keeps its last good ring, the new file has
    // none; the reload is reported failed (health degraded, an audit event), beta is unaffected.
    await publish(rings, { 'acme.json': '{"format":"veil.keyring/v1","tenant_id":"acme"}', 'beta.json': beta, 'new.json': 'not json' }, 'keyring');
    expect(t.deps.reload.lastOutcome('keyring')?.ok).toBe(false);
    const kept = await acmeRing();
    expect(kept).toMatchObject({ kids: ['a2'], file_generation: 4, problems: expect.arrayContaining([expect.stringContaining('acme.json: generation: is required')]) });
    expect((await diagnostics(t)).key_ring_problems).toEqual([{ file: 'new.json', problems: [expect.stringContaining('new.json: is not valid JSON')] }]);
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(ACME_KEY))).body.session_state).toMatch(/^v1\.a2\./);
    expect((await send(t.app, { method: 'GET', url: '/v1/health', headers: auth(ADMIN_KEY) })).body.components.session.status).toBe('degraded');
    expect(t.logs.lines.some((line) => line.includes('"keyring_reloaded"') && line.includes('"failure_code":"VEIL_VALIDATION_FAILED"'))).toBe(true);

    // Two files naming acme: neither wins, acme keeps what it had.
    await publish(rings, { 'acme.json': ringFile('acme', 5, 'a2', { a2: SECRET_A2 }), 'acme-copy.json': ringFile('acme', 1, 'a1', { a1: SECRET_A1 }), 'beta.json': beta }, 'keyring');
    expect(await acmeRing()).toMatchObject({ kids: ['a2'], file: 'acme.json', file_generation: 4 });
    expect((await diagnostics(t)).key_ring_problems).toEqual([{ file: 'acme-copy.json', problems: [expect.stringContaining('several files name the same tenant')] }]);

    // The Tenant is deleted (its file removed): acme falls back to the platform ring, and the
    // blobs of its own ring no longer open.
    await publish(rings, { 'beta.json': beta }, 'keyring');
    expect(t.deps.reload.lastOutcome('keyring')?.ok).toBe(true);
    expect(tenantRing(await diagnostics(t), 'acme')).toBeUndefined();
    const platformKid = t.deps.reload.keyRingFor(null).currentKid;
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(ACME_KEY))).body.session_state.startsWith(`v1.${platformKid}.`)).toBe(true);
    expect((await post(t.app, '/v1/rehydrate', { output: current.body.entities[0].token, session_state: current.body.session_state }, auth(ACME_KEY))).status).toBe(410);
    for (const secret of [SECRET_A1, SECRET_A2, SECRET_B1]) expect(t.logs.text()).not.toContain(secret);
  });

  it('refuses to start with an unusable ring file or a missing directory', async () => {
    const rings = volume({ 'acme.json': ringFile('acme', 1, 'a1', { a1: SECRET_A1 }).replace(SECRET_A1, 'zz'.repeat(32)) });
    await expect(buildTestApp({ overrides: { 'session.keyring_directory': rings.dir } })).rejects.toThrow(/session\.keyring_directory .*acme\.json: keys\[0\]\.secret/);
    await expect(buildTestApp({ overrides: { 'session.keyring_directory': join(rings.dir, 'missing') } })).rejects.toThrow(/session\.keyring_directory .*cannot be read \(ENOENT\)/);
  });
});

describe('API keys from the operator directory (auth.api_keys_directory)', () => {
  const acmeFile = (keys: ApiKeyFileEntry[], generation = 1): string => serializeApiKeysFile({ generation, keys });
  const operatorFile = serializeApiKeysFile({ generation: 1, keys: [keyEntry(ADMIN_KEY, 'veil-operator', undefined, ['admin'])] });

  it('authenticates by key_sha256 with the tenant bound, and a removed key stops working after the reload (threats.md 13)', async () => {
    const keys = volume({
      'acme.json': acmeFile([keyEntry(ACME_KEY, 'acme-app', 'acme', ['transform', 'rehydrate']), keyEntry(ACME_OLD_KEY, 'acme-old', 'acme', ['transform'])]),
      '_operator.json': operatorFile,
    });
    t = await buildTestApp({ overrides: { auth: { mode: 'api_key', api_keys_directory: keys.dir }, 'audit.allow_ephemeral': true } });
    const { publish } = watching(t);

    const sealed = await post(t.app, '/v1/transform', { input: `mail ${EMAIL}` }, auth(ACME_KEY));
    expect(sealed.status).toBe(200);
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(ACME_OLD_KEY))).status).toBe(200);
    // The key is acme's: the blob opens for acme and not for the (untenanted) admin.
    const output = { output: sealed.body.entities[0].token, session_state: sealed.body.session_state };
    expect((await post(t.app, '/v1/rehydrate', output, auth(ACME_KEY))).body.restored_text).toBe(EMAIL);
    expect((await post(t.app, '/v1/rehydrate', output, auth(ADMIN_KEY))).status).toBe(410);
    // Scopes come from the file: acme's key is not an admin key.
    expect((await send(t.app, { method: 'GET', url: '/v1/diagnostics', headers: auth(ACME_KEY) })).status).toBe(403);
    expect((await diagnostics(t)).api_keys).toMatchObject({ count: 3, source: 'directory' });

    await publish(keys, { 'acme.json': acmeFile([keyEntry(ACME_KEY, 'acme-app', 'acme', ['transform', 'rehydrate'])], 2), '_operator.json': operatorFile }, 'api_keys');
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(ACME_OLD_KEY))).status).toBe(401);
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(ACME_KEY))).status).toBe(200);

    // A broken file (or a tenant file granting an untenanted key) is refused whole: the running keys stay.
    await publish(keys, { 'acme.json': acmeFile([keyEntry(ACME_KEY, 'acme-app', undefined, ['transform'])], 3), '_operator.json': operatorFile }, 'api_keys');
    expect(t.deps.reload.lastOutcome('api_keys')?.ok).toBe(false);
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(ACME_KEY))).status).toBe(200);
    expect((await post(t.app, '/v1/rehydrate', output, auth(ACME_KEY))).status).toBe(200);

    const logs = t.logs.text();
    for (const secret of [ACME_KEY, ACME_OLD_KEY, ADMIN_KEY, apiKeyDigest(ACME_KEY), apiKeyDigest(ACME_OLD_KEY)]) expect(logs).not.toContain(secret);
  });

  it('refuses to start when a tenant file grants a key without its tenant, or two files repeat a key', async () => {
    const untenanted = volume({ 'acme.json': acmeFile([keyEntry(ACME_KEY, 'acme-app', undefined, ['transform'])]) });
    await expect(buildTestApp({ overrides: { auth: { mode: 'api_key', api_keys_directory: untenanted.dir }, 'audit.allow_ephemeral': true } })).rejects.toThrow(/acme\.json: keys\[\]\.tenant_id/);
    const repeated = volume({ 'acme.json': acmeFile([keyEntry(ACME_KEY, 'acme-app', 'acme', ['transform'])]), 'beta.json': acmeFile([keyEntry(ACME_KEY, 'beta-app', 'beta', ['transform'])]) });
    await expect(buildTestApp({ overrides: { auth: { mode: 'api_key', api_keys_directory: repeated.dir }, 'audit.allow_ephemeral': true } })).rejects.toThrow(
      /beta\.json: keys\[0\] repeats the key of auth\.api_keys_directory .*acme\.json: keys\[0\]/,
    );
  });

  it('accepts key_sha256 next to plaintext keys inline and in auth.api_keys_file, and never both on one entry', async () => {
    const file = volume({ 'api-keys.yaml': `- {identity: file-hashed, key_sha256: ${apiKeyDigest(BETA_KEY)}, scopes: [transform]}\n` });
    t = await buildTestApp({
      overrides: {
        auth: {
          mode: 'api_key',
          api_keys: [
            { identity: 'inline-hashed', key_sha256: apiKeyDigest(ACME_KEY), scopes: ['transform'] },
            { identity: 'inline-plain', key: GAMMA_KEY, scopes: ['transform'] },
          ],
          api_keys_file: join(file.dir, 'api-keys.yaml'),
        },
        'audit.allow_ephemeral': true,
      },
    });
    for (const key of [ACME_KEY, GAMMA_KEY, BETA_KEY]) expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(key))).status).toBe(200);
    // The digest itself is not a key.
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(apiKeyDigest(ACME_KEY)))).status).toBe(401);
    await t.close();
    t = undefined;
    const both = { auth: { mode: 'api_key', api_keys: [{ identity: 'x', key: ACME_KEY, key_sha256: apiKeyDigest(ACME_KEY) }] }, 'audit.allow_ephemeral': true };
    await expect(buildTestApp({ overrides: both })).rejects.toThrow(/auth\.api_keys\[0\]: set key or key_sha256, not both/);
    const twice = { auth: { mode: 'api_key', api_keys: [{ identity: 'x', key: ACME_KEY }, { identity: 'y', key_sha256: apiKeyDigest(ACME_KEY) }] }, 'audit.allow_ephemeral': true };
    await expect(buildTestApp({ overrides: twice })).rejects.toThrow(/auth\.api_keys\[1\]\.key_sha256: duplicates auth\.api_keys\[0\]\.key/);
  });
});

describe('tenant settings (tenants_directory)', () => {
  const settings = (tenant: string, generation: number, extra: { policies?: string[]; rate_limit?: { requests_per_second?: number; burst_size?: number } } = {}): string =>
    serializeTenantSettingsFile({ tenant_id: tenant, generation, ...extra });

  it('enforces allowed policies on every path: named, default, continued, rehydrate, detect, evaluate, worker', async () => {
    const policies = volume({ 'support.yaml': policyYaml('support'), 'strict.yaml': policyYaml('strict') });
    const tenants = volume({ 'acme.json': settings('acme', 1, { policies: ['support'] }), 'beta.json': settings('beta', 1, { policies: [] }), 'gamma.json': settings('gamma', 1) });
    t = await buildTestApp({
      overrides: { ...apiKeyOverrides(TENANT_KEYS), 'policy.directory': policies.dir, 'policy.default': 'strict', tenants_directory: tenants.dir, 'transform.offload_threshold_bytes': 256 },
    });
    const { publish } = watching(t);
    const denied = (response: { status: number; body: any }, message: RegExp): void => {
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ code: 'VEIL_POLICY_DENIED', error: expect.stringMatching(message) });
    };

    const allowed = await post(t.app, '/v1/transform', { input: `mail ${EMAIL}`, policy: 'support' }, auth(ACME_KEY));
    expect(allowed.status).toBe(200);
    denied(await post(t.app, '/v1/transform', { input: 'x', policy: 'strict' }, auth(ACME_KEY)), /^policy: not allowed for this tenant$/);
    // The default (strict) is implied and not on acme's list.
    denied(await post(t.app, '/v1/transform', { input: 'x' }, auth(ACME_KEY)), /^policy: the default policy is not allowed/);
    // An unknown name is refused the same way: a restricted tenant cannot probe for policies.
    denied(await post(t.app, '/v1/transform', { input: 'x', policy: 'nonexistent' }, auth(ACME_KEY)), /^policy: not allowed/);
    denied(await post(t.app, '/v1/detect', { input: 'x', policy: 'strict' }, auth(ACME_KEY)), /^policy:/);
    denied(await post(t.app, '/v1/evaluate-policy', { policy: 'strict', entities: [{ type: 'email' }] }, auth(ACME_KEY)), /^policy:/);
    denied(await post(t.app, '/v1/transform', { input: 'lorem '.repeat(80), policy: 'strict' }, auth(ACME_KEY)), /^policy:/);
    // An empty list allows nothing; no list (gamma) or no file (delta) allows everything.
    denied(await post(t.app, '/v1/transform', { input: 'x', policy: 'support' }, auth(BETA_KEY)), /^policy:/);
    for (const key of [GAMMA_KEY, DELTA_KEY, PLATFORM_KEY]) expect((await post(t.app, '/v1/transform', { input: 'x', policy: 'strict' }, auth(key))).status).toBe(200);
    // Untenanted and unrestricted callers still get 400 for an unknown name.
    expect((await post(t.app, '/v1/transform', { input: 'x', policy: 'nonexistent' }, auth(GAMMA_KEY))).status).toBe(400);
    expect((await diagnostics(t)).tenant_settings.tenants).toEqual([
      { tenant: 'acme', file: 'acme.json', file_generation: 1, rate_limit: false, policies: ['support'], loaded_at_unix: expect.any(Number) },
      { tenant: 'beta', file: 'beta.json', file_generation: 1, rate_limit: false, policies: [], loaded_at_unix: expect.any(Number) },
      { tenant: 'gamma', file: 'gamma.json', file_generation: 1, rate_limit: false, policies: null, loaded_at_unix: expect.any(Number) },
    ]);

    // A large continued session, opened on a worker thread, under the allowed policy.
    const large = await post(t.app, '/v1/transform', { input: `${'lorem ipsum '.repeat(40)} mail ${EMAIL}`, policy: 'support' }, auth(ACME_KEY));
    expect(large.status).toBe(200);

    // acme's list moves to strict only: its support sessions can no longer continue or restore.
    await publish(tenants, { 'acme.json': settings('acme', 2, { policies: ['strict'] }), 'beta.json': settings('beta', 1, { policies: [] }), 'gamma.json': settings('gamma', 1) }, 'tenants');
    expect(t.deps.reload.lastOutcome('tenants')?.ok).toBe(true);
    denied(await post(t.app, '/v1/transform', { input: 'more', session_state: allowed.body.session_state }, auth(ACME_KEY)), /^policy: not allowed/);
    denied(await post(t.app, '/v1/transform', { input: 'more '.repeat(80), session_state: large.body.session_state }, auth(ACME_KEY)), /^policy: not allowed/);
    denied(await post(t.app, '/v1/rehydrate', { output: allowed.body.entities[0].token, session_state: allowed.body.session_state }, auth(ACME_KEY)), /^policy: not allowed/);
    expect((await post(t.app, '/v1/transform', { input: 'x' }, auth(ACME_KEY))).status).toBe(200);

    // A broken settings file keeps acme's last good settings.
    await publish(tenants, { 'acme.json': '{"format":"veil.tenant/v1"}', 'beta.json': settings('beta', 1, { policies: [] }), 'gamma.json': settings('gamma', 1) }, 'tenants');
    expect(t.deps.reload.lastOutcome('tenants')?.ok).toBe(false);
    denied(await post(t.app, '/v1/transform', { input: 'x', policy: 'support' }, auth(ACME_KEY)), /^policy:/);
    expect((await diagnostics(t)).tenant_settings.tenants[0]).toMatchObject({ tenant: 'acme', policies: ['strict'], problems: expect.arrayContaining([expect.stringContaining('acme.json: generation: is required')]) });
  });

  it('feeds per-tenant rate limits to the limiter and follows their reloads; the file wins over tenants.<id> in the config', async () => {
    const tenants = volume({ 'acme.json': settings('acme', 1, { rate_limit: { requests_per_second: 0.01, burst_size: 2 } }) });
    t = await buildTestApp({
      overrides: {
        ...apiKeyOverrides(TENANT_KEYS),
        rate_limit: { enabled: true, requests_per_second: 1000, burst_size: 1000 },
        tenants: { acme: { rate_limit: { burst_size: 50 } }, beta: { rate_limit: { requests_per_second: 0.01, burst_size: 1 } } },
        tenants_directory: tenants.dir,
      },
    });
    const { publish } = watching(t);
    const transform = async (key: string): Promise<number> => (await post(t!.app, '/v1/transform', { input: 'x' }, auth(key))).status;
    expect([await transform(ACME_KEY), await transform(ACME_KEY), await transform(ACME_KEY)]).toEqual([200, 200, 429]);
    // beta has no file: its config override applies.
    expect([await transform(BETA_KEY), await transform(BETA_KEY)]).toEqual([200, 429]);
    expect(await transform(GAMMA_KEY)).toBe(200);

    t.advance(1);
    expect(await transform(ACME_KEY)).toBe(429);
    await publish(tenants, { 'acme.json': settings('acme', 2, { rate_limit: { requests_per_second: 1, burst_size: 10 } }) }, 'tenants');
    t.advance(10);
    for (let index = 0; index < 10; index += 1) expect(await transform(ACME_KEY)).toBe(200);
    expect(await transform(ACME_KEY)).toBe(429);
    // Without the file the config override is back (burst 50, rate_limit's 1000 per second).
    await publish(tenants, {}, 'tenants');
    t.advance(1);
    for (let index = 0; index < 20; index += 1) expect(await transform(ACME_KEY)).toBe(200);
  });
});

describe('the default-policy marker (default-policy.txt)', () => {
  it('selects the default, follows it on reload, refuses a marker naming no policy, and loses to policy.default', async () => {
    const files = { 'support.yaml': policyYaml('support'), 'strict.yaml': policyYaml('strict') };
    const policies = volume({ ...files, 'default-policy.txt': 'support\n' });
    t = await buildTestApp({ overrides: { 'policy.directory': policies.dir } });
    expect(t.deps.policies.registry.defaultName).toBe('support');
    expect((await send(t.app, { method: 'GET', url: '/v1/diagnostics' })).body).toMatchObject({ default_policy: 'support', default_policy_source: 'marker' });

    policies.publish({ ...files, 'default-policy.txt': 'strict\n' });
    const reloaded = await post(t.app, '/v1/admin/policy/reload', {});
    expect(reloaded.body).toEqual({ reloaded: true, changes: [{ change: 'default', policy: 'strict', previous_default: 'support' }] });

    policies.publish({ ...files, 'default-policy.txt': 'missing\n' });
    const refused = await post(t.app, '/v1/admin/policy/reload', {});
    expect(refused.body).toMatchObject({ reloaded: false, errors: [{ field: 'default-policy.txt', message: expect.stringContaining('not found') }] });
    expect(t.deps.policies.registry.defaultName).toBe('strict');
    // Without a marker the usual rule (a policy named default, else the first name) applies.
    policies.publish(files);
    // (No `default` policy, so the first name, strict: the default does not move.)
    expect((await post(t.app, '/v1/admin/policy/reload', {})).body).toEqual({ reloaded: true, changes: [] });
    expect((await send(t.app, { method: 'GET', url: '/v1/diagnostics' })).body.default_policy_source).toBe('rule');
    await t.close();

    policies.publish({ ...files, 'default-policy.txt': 'support\n' });
    t = await buildTestApp({ overrides: { 'policy.directory': policies.dir, 'policy.default': 'strict' } });
    expect((await send(t.app, { method: 'GET', url: '/v1/diagnostics' })).body).toMatchObject({ default_policy: 'strict', default_policy_source: 'config' });
    await t.close();
    t = undefined;

    policies.publish({ ...files, 'default-policy.txt': 'Not A Name!\n' });
    await expect(buildTestApp({ overrides: { 'policy.directory': policies.dir } })).rejects.toThrow(/default-policy\.txt: default-policy\.txt: must hold one policy name/);
  });
});
