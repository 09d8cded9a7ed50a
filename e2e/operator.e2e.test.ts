// The Kubernetes path without Kubernetes: the real operator reconciles resources held by the API
// simulator, a kubelet stand-in projects the rendered ConfigMap/Secret into directories exactly
// as a volume mount does (`..data` symlink swaps), and two real `veil serve` processes
// hot-reload from those directories while traffic flows. Only the API server and the kubelet
// are simulated; operator, client library and servers are the real ones.
//
// Scenario 1: policies published under traffic, the last good one kept. Scenario 2: a tenant's
// session-key rotation (Staging -> Switching -> Retiring) under that tenant's traffic: the
// servers read the tenant's key ring, API-key digests and settings from the projected
// directories (session.keyring_directory, auth.api_keys_directory, tenants_directory), report
// the ring generation per tenant in /v1/diagnostics, and the operator advances only on those
// reports. Every transform is rehydrated on the other server, so a phase that advanced before
// both servers had loaded it would fail a request.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../operator/src/kube/types.js';
import { VolumeProjector } from '../operator/src/render/volume.js';
import { UrlReplicaReporter } from '../operator/src/replicas/reporter.js';
import { conditionOf, createWorld, NAMESPACE, TENANT_KEYS_NAMESPACE, waitFor, type World } from '../operator/test/support/world.js';
import { postJson, startVeil, type ServerProcess } from './support/server.js';
import { tenantTraffic } from './support/traffic.js';

const SESSION_SECRET = '5a'.repeat(32);
const ADMIN_KEY = 'operator-admin-key-0123456789abcdef';
const TENANT_KEY = 'acme-client-key-0123456789abcdef';

function policyResource(version: string, emailAction: string): KubeObject {
  return {
    apiVersion: 'veil.dev/v1alpha1',
    kind: 'TokenizationPolicy',
    metadata: { name: 'support', namespace: NAMESPACE },
    spec: {
      default: true,
      policy: {
        name: 'support',
        version,
        rules: [
          { name: 'email', match: { entity_type: 'email' }, action: emailAction },
          { name: 'catch-all', match: {}, action: 'tokenize', restore_mode: 'full' },
        ],
      },
    },
  };
}

/** Sends transforms round-robin to every server until stopped; counts every non-200. */
function traffic(servers: readonly ServerProcess[]): { sent(): number; stop(): Promise<{ sent: number; failed: string[] }> } {
  let running = true;
  let sent = 0;
  const failed: string[] = [];
  const loop = (async () => {
    for (let index = 0; running; index += 1) {
      const server = servers[index % servers.length]!;
      try {
        const response = await postJson(`${server.url}/v1/transform`, { input: `write to alice${index}@example.com` });
        sent += 1;
        if (response.status !== 200) failed.push(`${response.status} ${response.text.slice(0, 200)}`);
      } catch (error) {
        failed.push(error instanceof Error ? error.message : 'request failed');
      }
    }
  })();
  return {
    sent: () => sent,
    stop: async () => {
      running = false;
      await loop;
      return { sent, failed };
    },
  };
}

async function diagnostics(server: ServerProcess, apiKey?: string): Promise<Record<string, any>> {
  const response = await fetch(`${server.url}/v1/diagnostics`, { headers: apiKey === undefined ? {} : { 'x-api-key': apiKey } });
  return (await response.json()) as Record<string, any>;
}


describe('operator -> mounted directories -> two hot-reloading servers (no Kubernetes)', () => {
  let world: World | undefined;
  const worlds: World[] = [];
  const servers: ServerProcess[] = [];
  const projectors: VolumeProjector[] = [];
  const root = mkdtempSync(join(tmpdir(), 'veil-kubelet-'));

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    for (const projector of projectors) projector.stop();
    await world?.stop();
    for (const other of worlds) await other.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('publishes policy changes that both servers pick up under traffic, and keeps the last good one', async () => {
    world = await createWorld({ replicas: 0 });
    const { client, simulator, settings } = world;
    world.startOperator({ reporter: new UrlReplicaReporter(() => servers.map((server, index) => ({ name: `veil-${index}`, url: server.url }))) });
    const policyDir = join(root, 'policies');
    const projector = new VolumeProjector({ client, kind: 'ConfigMap', namespace: NAMESPACE, name: settings.policyConfigMap, dir: policyDir });
    projectors.push(projector);
    await projector.start();

    await client.create('TokenizationPolicy', policyResource('1.0.0', 'tokenize'));
    await waitFor(() => {
      try {
        return readFileSync(join(policyDir, 'support.yaml'), 'utf8').includes('1.0.0');
      } catch {
        return false;
      }
    });
    const env = { VEIL_SESSION_SECRET: SESSION_SECRET, VEIL_POLICY__DIRECTORY: policyDir, VEIL_POLICY__DEFAULT: 'support', VEIL_POLICY__WATCH: 'true', VEIL_POLICY__WATCH_DEBOUNCE_MS: '50' };
    servers.push(await startVeil({ env }), await startVeil({ env }));

    const load = traffic(servers);
    const before = await postJson(`${servers[0]!.url}/v1/transform`, { input: 'mail bob@example.com' });
    expect(before.body.safe_text).toMatch(/\{\{email:/);

    // v2 redacts emails: the operator publishes, the projector swaps ..data, both servers reload.
    const current = await client.get('TokenizationPolicy', NAMESPACE, 'support');
    await client.replace('TokenizationPolicy', { ...current!, spec: policyResource('2.0.0', 'redact').spec });
    for (const server of servers) {
      await waitFor(async () => (await diagnostics(server)).policies?.some((policy: { name: string; version: string }) => policy.name === 'support' && policy.version === '2.0.0'), 20_000, 'the server to load v2');
    }
    for (const server of servers) {
      const after = await postJson(`${server.url}/v1/transform`, { input: 'mail bob@example.com' });
      expect(after.body.safe_text).toContain('[REDACTED]');
    }
    // Traffic flows under v2 (counted, not timed: a loaded machine may be slow to start it).
    const sentUnderV2 = load.sent();
    await waitFor(() => load.sent() >= sentUnderV2 + 6, 30_000, 'traffic under v2');

    // v3 is invalid for the server's validator: never published, v2 stays live everywhere.
    const v2 = await client.get('TokenizationPolicy', NAMESPACE, 'support');
    const broken = policyResource('3.0.0', 'tokenize') as unknown as { spec: { policy: { rules: Record<string, unknown>[] } } };
    broken.spec.policy.rules[0] = { name: 'email', match: { entity_type: 'email' }, action: 'tokenize', restore_mode: 'partial', restore_strategy: 'undefined-strategy' };
    await client.replace('TokenizationPolicy', { ...v2!, spec: broken.spec });
    await waitFor(() => conditionOf(simulator.peek('TokenizationPolicy', NAMESPACE, 'support'), 'Valid')?.status === 'False');
    expect(readFileSync(join(policyDir, 'support.yaml'), 'utf8')).toContain('2.0.0');
    // And keeps flowing after the refused v3.
    const sentAfterV3 = load.sent();
    await waitFor(() => load.sent() >= sentAfterV3 + 6, 30_000, 'traffic after the refused v3');

    const result = await load.stop();
    expect(result.sent).toBeGreaterThan(10);
    expect(result.failed).toEqual([]);
    for (const server of servers) expect((await diagnostics(server)).policies.find((policy: { name: string }) => policy.name === 'support').version).toBe('2.0.0');
  });

  it('rotates a tenant key ring under tenant traffic across two servers with no failed request', async () => {
    // Its own API server and operator: a key is retired one operator session TTL after the
    // switch, which must cover the servers' session.ttl_seconds (3 s >= 2 s), and the
    // operator's credential for /v1/diagnostics is the servers' admin key.
    const rotationWorld = await createWorld({ replicas: 0, settings: { VEIL_OPERATOR_SESSION_TTL_SECONDS: '3' } });
    worlds.push(rotationWorld);
    const { client, simulator, settings } = rotationWorld;
    const dirs = { keyRings: join(root, 'keyrings'), apiKeys: join(root, 'tenant-api-keys'), tenants: join(root, 'tenants') };
    const mounts: [string, string, string][] = [
      ['Secret', settings.keyRingSecret, dirs.keyRings],
      ['Secret', settings.apiKeysSecret, dirs.apiKeys],
      ['ConfigMap', settings.tenantsConfigMap, dirs.tenants],
    ];
    for (const [kind, name, dir] of mounts) {
      const projector = new VolumeProjector({ client, kind: kind as 'Secret' | 'ConfigMap', namespace: NAMESPACE, name, dir });
      projectors.push(projector);
      await projector.start();
    }
    const rotationServers: ServerProcess[] = [];
    rotationWorld.startOperator({
      reporter: new UrlReplicaReporter(() => rotationServers.map((server, index) => ({ name: `veil-rot-${index}`, url: server.url })), { apiKey: () => Promise.resolve(ADMIN_KEY) }),
    });
    // The tenant's client key lives in a Secret; the operator publishes only its digest.
    await client.create('Secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'acme-client', namespace: TENANT_KEYS_NAMESPACE }, data: { 'api-key': Buffer.from(TENANT_KEY).toString('base64') } });
    const tenantSpec = {
      tenantId: 'acme',
      apiKeys: [{ identity: 'acme-app', secretRef: { name: 'acme-client', key: 'api-key' }, scopes: ['transform', 'rehydrate'] }],
      policies: ['default'],
    };
    await client.create('Tenant', { apiVersion: 'veil.dev/v1alpha1', kind: 'Tenant', metadata: { name: 'acme', namespace: NAMESPACE }, spec: tenantSpec });
    await waitFor(() => mounts.every(([, , dir]) => existsSync(join(dir, 'acme.json'))), 15_000, 'the tenant files to be projected');

    const env = {
      VEIL_SESSION_SECRET: SESSION_SECRET,
      VEIL_SESSION__TTL_SECONDS: '2',
      VEIL_SESSION__KEYRING_DIRECTORY: dirs.keyRings,
      VEIL_AUTH__MODE: 'api_key',
      VEIL_AUTH__API_KEYS: JSON.stringify([{ key: ADMIN_KEY, identity: 'veil-operator', scopes: ['admin'] }]),
      VEIL_AUTH__API_KEYS_DIRECTORY: dirs.apiKeys,
      VEIL_TENANTS_DIRECTORY: dirs.tenants,
      VEIL_ALLOW_EPHEMERAL_AUDIT: '1',
      // Every watcher's quiet period (key rings included).
      VEIL_POLICY__WATCH_DEBOUNCE_MS: '50',
    };
    rotationServers.push(await startVeil({ env }), await startVeil({ env }));
    servers.push(...rotationServers);
    const before = (await diagnostics(rotationServers[0]!, ADMIN_KEY)).key_rings.find((ring: { tenant: string | null }) => ring.tenant === 'acme');
    expect(before).toMatchObject({ source: 'directory', file: 'acme.json', kids: [expect.any(String)] });

    // The tenant's settings are enforced: a policy off its list is refused.
    const refused = await postJson(`${rotationServers[0]!.url}/v1/transform`, { input: 'hi', policy: 'support' }, { 'x-api-key': TENANT_KEY });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'VEIL_POLICY_DENIED', error: expect.stringContaining('policy') });

    const load = tenantTraffic(rotationServers, TENANT_KEY);
    const current = await client.get('Tenant', NAMESPACE, 'acme');
    await client.replace('Tenant', { ...current!, spec: { ...tenantSpec, sessionKeys: { rotateAt: new Date().toISOString() } } });
    const tenantStatus = () => simulator.peek('Tenant', NAMESPACE, 'acme')?.status as { rotation?: { phase: string }; keys?: { kid: string }[]; currentKid?: string } | undefined;
    await waitFor(() => tenantStatus()?.rotation?.phase === 'Staging', 15_000, 'the rotation to start');
    await waitFor(() => tenantStatus()?.rotation?.phase === 'Idle' && tenantStatus()?.keys?.length === 1, 60_000, 'the rotation to complete');
    // A little traffic after the old key is gone, sealed under the new one.
    const sentAtEnd = load.sent();
    await waitFor(() => load.sent() >= Math.max(sentAtEnd + 4, 11), 30_000, 'traffic after the rotation');
    const result = await load.stop();

    expect(result.failed).toEqual([]);
    expect(result.sent).toBeGreaterThan(10);
    // Every blob was sealed under the tenant's ring (never the platform ring): first the old
    // kid, then the new one, and nothing else.
    const newKid = tenantStatus()!.currentKid!;
    expect(newKid).not.toBe(before.current_kid);
    expect([...result.kids].sort()).toEqual([before.current_kid, newKid].sort());
    // Retiring does not wait for the replicas (only blobs past their TTL used the old key); each
    // server drops it on its own reload.
    for (const server of rotationServers) {
      const acme = async () => (await diagnostics(server, ADMIN_KEY)).key_rings.find((ring: { tenant: string | null }) => ring.tenant === 'acme');
      await waitFor(async () => (await acme())?.kids.length === 1, 15_000, 'the retired key to be unloaded');
      expect(await acme()).toMatchObject({ current_kid: newKid, kids: [newKid] });
    }
  }, 90_000);
});
