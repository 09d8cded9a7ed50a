// Operator scenarios: the real operator and the real client library against the API simulator,
// asserting world state (ConfigMaps, Secrets, statuses, events). Covers policy publishing and the
// last-good rule, tenants and API keys, a rotation gated by simulated server replicas (one of
// them lagging), faults (500s, 409s, dropped watches, 410), drift repair, the NER sidecar, and
// leader election between two operators.
import { afterEach, describe, expect, it } from 'vitest';
import { apiKeyDigest, DEFAULT_POLICY_FILE, parseApiKeysFile, parseKeyRingFile, parseTenantSettingsFile, VEIL_ANNOTATIONS, type Tenant, type TokenizationPolicy } from '@veil/common';
import type { ConfigMap, KubeObject, Lease, Secret } from './kube/types.js';
import type { Logger } from './controllers/runtime.js';
import { OperatorMetrics } from './metrics.js';
import { conditionOf, createWorld, NAMESPACE, TENANT_KEYS_NAMESPACE, waitFor, type World } from '../test/support/world.js';

let world: World | undefined;

afterEach(async () => {
  await world?.stop();
  world = undefined;
});

function policyResource(name: string, extra: Record<string, unknown> = {}, isDefault = false): KubeObject {
  return {
    apiVersion: 'veil.dev/v1alpha1',
    kind: 'TokenizationPolicy',
    metadata: { name, namespace: NAMESPACE },
    spec: { policy: { name, version: '1.0.0', rules: [{ name: 'catch-all', match: {}, action: 'tokenize', restore_mode: 'full' }], ...extra }, ...(isDefault ? { default: true } : {}) },
  };
}

function tenantResource(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'veil.dev/v1alpha1', kind: 'Tenant', metadata: { name, namespace: NAMESPACE }, spec };
}

const text = (secret: Secret | undefined, file: string): string | undefined => {
  const value = secret?.data?.[file];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
};

async function update(client: World['client'], kind: 'TokenizationPolicy' | 'Tenant', name: string, change: (object: KubeObject) => KubeObject): Promise<void> {
  for (;;) {
    const current = await client.get(kind, NAMESPACE, name);
    try {
      await client.replace(kind, change(current!));
      return;
    } catch (error) {
      // The test's own writes meet the injected faults too: retry like any client would.
      const status = (error as { status?: number }).status ?? 0;
      if (status !== 409 && status !== 429 && status < 500) throw error;
    }
  }
}

describe('operator: TokenizationPolicy', () => {
  it('publishes policies into one ConfigMap, keeps the last good one live when a policy turns invalid, and removes deleted ones', async () => {
    world = await createWorld();
    const { client, simulator, settings } = world;
    world.startOperator();
    await client.create('TokenizationPolicy', policyResource('support', {}, true));
    await client.create('TokenizationPolicy', policyResource('billing'));

    const published = await waitFor(() => {
      const configMap = simulator.peek<ConfigMap>('ConfigMap', NAMESPACE, settings.policyConfigMap);
      return configMap?.data?.['billing.yaml'] !== undefined && configMap.data['support.yaml'] !== undefined ? configMap : undefined;
    });
    expect(published.data?.[DEFAULT_POLICY_FILE]).toBe('support\n');
    expect(published.metadata.annotations?.[VEIL_ANNOTATIONS.contentHash]).toMatch(/^sha256:[0-9a-f]{64}$/);
    const support = await waitFor(() => {
      const object = simulator.peek('TokenizationPolicy', NAMESPACE, 'support');
      return conditionOf(object, 'Published')?.status === 'True' ? object : undefined;
    });
    expect(support.status).toMatchObject({ observedGeneration: 1, policyVersion: expect.stringMatching(/^sha256:/) });
    expect(conditionOf(support, 'Valid')).toMatchObject({ status: 'True' });
    const liveSupport = published.data!['support.yaml'];

    // Semantically invalid (passes the CRD schema, fails the server's own validation).
    await update(client, 'TokenizationPolicy', 'support', (object) => {
      const spec = object.spec as TokenizationPolicy['spec'];
      return { ...object, spec: { ...spec, policy: { ...spec.policy, version: '2.0.0', rules: [{ name: 'r', match: {}, action: 'tokenize', restore_mode: 'partial', restore_strategy: 'missing' }] } } };
    });
    const invalid = await waitFor(() => {
      const object = simulator.peek('TokenizationPolicy', NAMESPACE, 'support');
      return conditionOf(object, 'Valid')?.status === 'False' && (object?.status as { observedGeneration?: number }).observedGeneration === 2 ? object : undefined;
    });
    expect(conditionOf(invalid, 'Valid')!.message).toContain('spec.policy.rules[0].restore_strategy');
    expect(conditionOf(invalid, 'Published')).toMatchObject({ status: 'False', reason: 'LastValidVersionLive' });
    expect(simulator.peek<ConfigMap>('ConfigMap', NAMESPACE, settings.policyConfigMap)?.data?.['support.yaml']).toBe(liveSupport);
    await waitFor(() => simulator.peekAll('Event', NAMESPACE).some((event) => event.reason === 'InvalidPolicy'), 5000, 'InvalidPolicy event');

    // Repaired: the new version goes live.
    await update(client, 'TokenizationPolicy', 'support', (object) => {
      const spec = object.spec as TokenizationPolicy['spec'];
      return { ...object, spec: { ...spec, policy: { ...spec.policy, rules: [{ name: 'r', match: {}, action: 'redact' }] } } };
    });
    await waitFor(() => simulator.peek<ConfigMap>('ConfigMap', NAMESPACE, settings.policyConfigMap)?.data?.['support.yaml']?.includes('redact'));
    await waitFor(() => conditionOf(simulator.peek('TokenizationPolicy', NAMESPACE, 'support'), 'Published')?.status === 'True');

    await client.delete('TokenizationPolicy', NAMESPACE, 'billing');
    await waitFor(() => simulator.peek<ConfigMap>('ConfigMap', NAMESPACE, settings.policyConfigMap)?.data?.['billing.yaml'] === undefined);
  });

  it('reverts drift in its ConfigMap and writes nothing when nothing changed', async () => {
    world = await createWorld();
    const { client, simulator, settings } = world;
    world.startOperator();
    await client.create('TokenizationPolicy', policyResource('support'));
    const original = await waitFor(() => simulator.peek<ConfigMap>('ConfigMap', NAMESPACE, settings.policyConfigMap));
    await waitFor(() => conditionOf(simulator.peek('TokenizationPolicy', NAMESPACE, 'support'), 'Published')?.status === 'True');

    await client.replace('ConfigMap', { ...original, data: { ...original.data, 'rogue.yaml': 'name: rogue\n', 'support.yaml': 'tampered: true\n' } });
    await waitFor(() => {
      const data = simulator.peek<ConfigMap>('ConfigMap', NAMESPACE, settings.policyConfigMap)?.data;
      return data !== undefined && data['rogue.yaml'] === undefined && data['support.yaml'] === original.data!['support.yaml'];
    });

    // Quiet: a full resync of an unchanged world issues no write at all.
    const writesBefore = simulator.requests.filter((request) => request.method !== 'GET').length;
    simulator.dropWatches();
    simulator.compact();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(simulator.requests.filter((request) => request.method !== 'GET').length).toBe(writesBefore);
  });
});

describe('operator: Tenant', () => {
  it('publishes the key ring, API-key digests and settings; resolves API keys when their Secret appears; removes a deleted tenant', async () => {
    world = await createWorld();
    const { client, simulator, settings } = world;
    world.startOperator();
    await client.create(
      'Tenant',
      tenantResource('acme', {
        tenantId: 'acme-corp',
        apiKeys: [{ identity: 'acme-app', secretRef: { name: 'acme-key', key: 'token' }, scopes: ['transform', 'rehydrate'] }],
        rateLimit: { requestsPerSecond: 5, burstSize: 10 },
        policies: ['support'],
      }),
    );
    const pending = await waitFor(() => {
      const object = simulator.peek('Tenant', NAMESPACE, 'acme');
      return conditionOf(object, 'ApiKeysResolved')?.status === 'False' ? object : undefined;
    });
    expect(conditionOf(pending, 'ApiKeysResolved')!.message).toContain(`spec.apiKeys[0].secretRef: no usable API key in namespace ${TENANT_KEYS_NAMESPACE}`);
    expect(conditionOf(pending, 'Ready')?.status).toBe('False');

    const rawKey = 'acme-super-secret-api-key-0001';
    // A Secret of that name in the tenant's own namespace is not looked at.
    await client.create('Secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'acme-key', namespace: NAMESPACE }, data: { token: Buffer.from(rawKey).toString('base64') } });
    await client.create('Secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'acme-key', namespace: TENANT_KEYS_NAMESPACE }, data: { token: Buffer.from(rawKey).toString('base64') } });
    const ready = await waitFor(() => {
      const object = simulator.peek('Tenant', NAMESPACE, 'acme');
      return conditionOf(object, 'Ready')?.status === 'True' ? object : undefined;
    });

    const ring = parseKeyRingFile(text(simulator.peek<Secret>('Secret', NAMESPACE, settings.keyRingSecret), 'acme.json')!, 'acme.json');
    expect(ring.ok).toBe(true);
    if (!ring.ok) return;
    expect(ring.value).toMatchObject({ tenant_id: 'acme-corp', generation: 1, keys: [{ kid: ring.value.current_kid }] });
    expect(ready.status).toMatchObject({ currentKid: ring.value.current_kid, keyRingGeneration: 1, rotation: { phase: 'Idle', reason: 'Initial' } });
    expect(JSON.stringify(ready.status)).not.toContain(ring.value.keys[0]!.secret);

    const apiKeysText = text(simulator.peek<Secret>('Secret', NAMESPACE, settings.apiKeysSecret), 'acme.json')!;
    expect(apiKeysText).not.toContain(rawKey);
    const apiKeys = parseApiKeysFile(apiKeysText, 'acme.json');
    expect(apiKeys.ok && apiKeys.value.keys).toEqual([{ identity: 'acme-app', tenant_id: 'acme-corp', key_sha256: apiKeyDigest(rawKey), scopes: ['transform', 'rehydrate'] }]);
    const tenantSettings = parseTenantSettingsFile(simulator.peek<ConfigMap>('ConfigMap', NAMESPACE, settings.tenantsConfigMap)!.data!['acme.json']!, 'acme.json');
    expect(tenantSettings.ok && tenantSettings.value).toMatchObject({ tenant_id: 'acme-corp', rate_limit: { requests_per_second: 5, burst_size: 10 }, policies: ['support'] });

    // Deleting the referenced Secret revokes the key.
    await client.delete('Secret', TENANT_KEYS_NAMESPACE, 'acme-key');
    await waitFor(() => {
      const parsed = parseApiKeysFile(text(simulator.peek<Secret>('Secret', NAMESPACE, settings.apiKeysSecret), 'acme.json') ?? '', 'acme.json');
      return parsed.ok && parsed.value.keys.length === 0;
    });

    await client.delete('Tenant', NAMESPACE, 'acme');
    await waitFor(() => text(simulator.peek<Secret>('Secret', NAMESPACE, settings.keyRingSecret), 'acme.json') === undefined);
    await waitFor(() => simulator.peek<ConfigMap>('ConfigMap', NAMESPACE, settings.tenantsConfigMap)?.data?.['acme.json'] === undefined);
  });

  it('never overwrites a key ring it cannot read, and says why', async () => {
    world = await createWorld();
    const { client, simulator, settings } = world;
    const garbage = Buffer.from('{"format":"veil.keyring/v1","tenant_id":"acme-corp","generation":1,"current_kid":"k1","keys":[{"kid":"k1","secret":"short"}]}').toString('base64');
    await client.create('Secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: settings.keyRingSecret, namespace: NAMESPACE }, data: { 'acme.json': garbage } });
    world.startOperator();
    await client.create('Tenant', tenantResource('acme', { tenantId: 'acme-corp' }));
    const object = await waitFor(() => {
      const tenant = simulator.peek('Tenant', NAMESPACE, 'acme');
      return conditionOf(tenant, 'KeysPublished')?.status === 'False' ? tenant : undefined;
    });
    expect(conditionOf(object, 'KeysPublished')).toMatchObject({ reason: 'KeyRingUnreadable' });
    expect(conditionOf(object, 'KeysPublished')!.message).toContain('keys[0].secret');
    expect(conditionOf(object, 'KeysPublished')!.message).not.toContain('short');
    expect(simulator.peek<Secret>('Secret', NAMESPACE, settings.keyRingSecret)?.data?.['acme.json']).toBe(garbage);
  });
});

describe('operator: caches behind the API server', () => {
  it('reconciles a burst of tenants and policies with no failed reconcile and no warning (writes go through its caches; a 409 is retried quietly)', async () => {
    // The simulator delivers watch events after the write returns, as a real API server does,
    // so each reconcile of the burst would otherwise plan from a cache one write behind.
    world = await createWorld();
    const { client, simulator } = world;
    const metrics = new OperatorMetrics();
    const warnings: string[] = [];
    const logger: Logger = { info: () => undefined, warn: (message) => warnings.push(message), error: (message) => warnings.push(message) };
    world.startOperator({ metrics, logger });
    const names = Array.from({ length: 6 }, (_, index) => `burst-${index}`);
    await Promise.all([
      ...names.map((name) => client.create('Tenant', tenantResource(name, { tenantId: name, rateLimit: { requestsPerSecond: 1 } }))),
      ...names.slice(0, 3).map((name) => client.create('TokenizationPolicy', policyResource(name))),
    ]);
    await waitFor(() => names.every((name) => conditionOf(simulator.peek('Tenant', NAMESPACE, name), 'Ready')?.status === 'True'), 30_000, 'every tenant Ready');
    await waitFor(() => names.slice(0, 3).every((name) => conditionOf(simulator.peek('TokenizationPolicy', NAMESPACE, name), 'Published')?.status === 'True'), 30_000, 'every policy Published');
    const text = await metrics.registry.metrics();
    expect(text).not.toMatch(/veil_operator_reconcile_total\{controller="[a-z]+",result="error"\} [1-9]/);
    expect(warnings).toEqual([]);
  });
});

describe('operator: session-key rotation', () => {
  it('stages, switches and retires only as every ready replica reports; a lagging replica holds the phase', async () => {
    world = await createWorld({ replicas: 3 });
    const { client, simulator, settings, replicas } = world;
    world.startOperator();
    await client.create('Tenant', tenantResource('acme', { tenantId: 'acme-corp' }));
    const initial = await waitFor(() => simulator.peek<Tenant & KubeObject>('Tenant', NAMESPACE, 'acme')?.status?.currentKid);

    // veil-server-2 stops loading updates; an SRE requests a rotation.
    await replicas[2]!.freeze();
    await update(client, 'Tenant', 'acme', (object) => ({ ...object, spec: { ...(object.spec as object), sessionKeys: { rotateAt: new Date().toISOString() } } }));
    const staging = await waitFor(() => {
      const tenant = simulator.peek<Tenant & KubeObject>('Tenant', NAMESPACE, 'acme');
      return tenant?.status?.rotation?.phase === 'Staging' && conditionOf(tenant, 'KeysPublished')?.message.includes('veil-server-2') === true ? tenant : undefined;
    });
    const newKid = staging.status!.rotation!.newKid!;
    expect(staging.status!.rotation).toMatchObject({ reason: 'Requested', oldKid: initial });
    expect(staging.status!.currentKid).toBe(initial);
    expect(conditionOf(staging, 'KeysPublished')!.message).toMatch(/waiting for 1 of 3 ready server replicas/);
    const stagedRing = parseKeyRingFile(text(simulator.peek<Secret>('Secret', NAMESPACE, settings.keyRingSecret), 'acme.json')!, 'acme.json');
    expect(stagedRing.ok && stagedRing.value.current_kid).toBe(initial);
    expect(stagedRing.ok && stagedRing.value.keys.map((key) => key.kid)).toEqual([initial, newKid]);

    // It stays in Staging, however long the lag lasts: it never advances on a timeout.
    const pollsBefore = replicas[2]!.requests;
    await waitFor(() => replicas[2]!.requests >= pollsBefore + 5);
    expect(simulator.peek<Tenant & KubeObject>('Tenant', NAMESPACE, 'acme')?.status?.rotation?.phase).toBe('Staging');

    // The replica catches up: Switching, then Retiring, then (after the 1 s TTL) Idle.
    replicas[2]!.thaw();
    const done = await waitFor(() => {
      const tenant = simulator.peek<Tenant & KubeObject>('Tenant', NAMESPACE, 'acme');
      return tenant?.status?.rotation?.phase === 'Idle' && tenant.status.currentKid === newKid ? tenant : undefined;
    });
    expect(done.status!.keys).toEqual([expect.objectContaining({ kid: newKid, phase: 'Current' })]);
    expect(done.status!.rotation).toMatchObject({ lastRotateAt: expect.any(String), lastCompletedAt: expect.any(String) });
    const finalRing = parseKeyRingFile(text(simulator.peek<Secret>('Secret', NAMESPACE, settings.keyRingSecret), 'acme.json')!, 'acme.json');
    expect(finalRing.ok && finalRing.value).toMatchObject({ current_kid: newKid, generation: 4 });
    const expected = ['KeyRingCreated', 'RotationStarted', 'RotationSwitching', 'RotationRetiring', 'RotationCompleted'];
    await waitFor(() => {
      const reasons = new Set(simulator.peekAll('Event', NAMESPACE).map((event) => event.reason as string));
      return expected.every((reason) => reasons.has(reason));
    }, 5000, 'the rotation events');
  });

  it('rotates through API faults: 500s, 409s, dropped watches and a 410 relist', async () => {
    world = await createWorld({ replicas: 2 });
    const { client, simulator } = world;
    world.startOperator();
    await client.create('Tenant', tenantResource('acme', { tenantId: 'acme-corp' }));
    const initial = await waitFor(() => simulator.peek<Tenant & KubeObject>('Tenant', NAMESPACE, 'acme')?.status?.currentKid);

    simulator.failNext(3, { status: 500, methods: ['PUT', 'POST'] });
    simulator.failNext(2, { status: 409, methods: ['PATCH'], kinds: ['Secret'] });
    simulator.failNext(2, { status: 429, methods: ['PATCH'] });
    await update(client, 'Tenant', 'acme', (object) => ({ ...object, spec: { ...(object.spec as object), sessionKeys: { rotateAt: new Date().toISOString() } } }));
    // The rotation has begun once the ring moved past generation 1 (a phase may be too brief to
    // observe: its status patch can be among the failed ones).
    await waitFor(() => {
      const ring = parseKeyRingFile(text(simulator.peek<Secret>('Secret', NAMESPACE, world!.settings.keyRingSecret), 'acme.json') ?? '', 'acme.json');
      return ring.ok && ring.value.generation >= 2;
    });
    simulator.dropWatches();
    simulator.compact();
    const done = await waitFor(() => {
      const tenant = simulator.peek<Tenant & KubeObject>('Tenant', NAMESPACE, 'acme');
      return tenant?.status?.rotation?.phase === 'Idle' && tenant.status.currentKid !== initial ? tenant : undefined;
    }, 20_000);
    expect(done.status!.keys).toHaveLength(1);
    // One request, one rotation: the ring went through exactly Staging, Switching, Retiring.
    const ring = parseKeyRingFile(text(simulator.peek<Secret>('Secret', NAMESPACE, world.settings.keyRingSecret), 'acme.json')!, 'acme.json');
    expect(ring.ok && ring.value.generation).toBe(4);
    expect(simulator.requests.some((request) => request.status === 500)).toBe(true);
  });
});

describe('operator: NER sidecar', () => {
  it('creates the Deployment (key file mounted from the chart Secret) and its Service, and reverts drift', async () => {
    world = await createWorld({ settings: { VEIL_OPERATOR_NER_IMAGE: 'ghcr.io/veil/veil-ner:1.0.0', VEIL_OPERATOR_NER_REPLICAS: '2', VEIL_OPERATOR_NER_API_KEY_SECRET: 'veil-ner-api-key' } });
    const { client, simulator } = world;
    world.startOperator();
    const deployment = await waitFor(() => simulator.peek('Deployment', NAMESPACE, 'veil-ner'));
    const service = await waitFor(() => simulator.peek('Service', NAMESPACE, 'veil-ner'));
    expect(deployment.spec).toMatchObject({
      replicas: 2,
      template: {
        spec: {
          volumes: [{ secret: { secretName: 'veil-ner-api-key' } }],
          containers: [{ image: 'ghcr.io/veil/veil-ner:1.0.0', env: expect.arrayContaining([{ name: 'VEIL_NER_API_KEY_FILE', value: '/var/run/veil/ner-api-key/api-key' }]), volumeMounts: [{ mountPath: '/var/run/veil/ner-api-key' }] }],
        },
      },
    });
    expect(service.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Deployment', uid: deployment.metadata.uid, controller: true })]);
    expect(service.spec).toMatchObject({ ports: [{ port: 8001, targetPort: 'http' }] });

    const spec = deployment.spec as { replicas: number; template: { spec: { containers: { image: string }[] } } };
    spec.replicas = 7;
    spec.template.spec.containers[0]!.image = 'evil:latest';
    await client.replace('Deployment', deployment);
    await waitFor(() => {
      const current = simulator.peek('Deployment', NAMESPACE, 'veil-ner')?.spec as typeof spec | undefined;
      return current?.replicas === 2 && current.template.spec.containers[0]!.image === 'ghcr.io/veil/veil-ner:1.0.0';
    });

    // Deleting the Deployment garbage-collects the Service; both come back.
    await client.delete('Deployment', NAMESPACE, 'veil-ner');
    await waitFor(() => {
      const recreated = simulator.peek('Deployment', NAMESPACE, 'veil-ner');
      const again = simulator.peek('Service', NAMESPACE, 'veil-ner');
      return recreated !== undefined && recreated.metadata.uid !== deployment.metadata.uid && again?.metadata.ownerReferences?.[0]?.uid === recreated.metadata.uid;
    });
  });
});

describe('operator: leader election', () => {
  it('only the leader reconciles; when it stops, the other takes over and carries on', async () => {
    world = await createWorld();
    const { client, simulator, settings } = world;
    const lease = { durationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };
    const first = world.startOperator({ leaderElection: true, identity: 'op-a', lease });
    await waitFor(() => first.isLeader);
    const second = world.startOperator({ leaderElection: true, identity: 'op-b', lease });
    await client.create('TokenizationPolicy', policyResource('support'));
    await waitFor(() => simulator.peek<ConfigMap>('ConfigMap', NAMESPACE, settings.policyConfigMap)?.data?.['support.yaml']);
    expect(second.isLeader).toBe(false);
    expect(second.active).toBe(false);
    expect(simulator.peek<Lease>('Lease', NAMESPACE, settings.leaseName)?.spec?.holderIdentity).toBe('op-a');

    await first.stop();
    await waitFor(() => second.active, 10_000, 'the second operator to lead');
    expect(simulator.peek<Lease>('Lease', NAMESPACE, settings.leaseName)?.spec?.holderIdentity).toBe('op-b');
    await client.create('TokenizationPolicy', policyResource('billing'));
    await waitFor(() => simulator.peek<ConfigMap>('ConfigMap', NAMESPACE, settings.policyConfigMap)?.data?.['billing.yaml']);
  });

  it('a leader cut off from the API stops reconciling', async () => {
    world = await createWorld();
    const { simulator } = world;
    const operator = world.startOperator({ leaderElection: true, identity: 'op-a', lease: { durationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 } });
    await waitFor(() => operator.active);
    simulator.failNext(1000, { status: 503, kinds: ['Lease'] });
    await waitFor(() => !operator.active, 10_000, 'the leader to step down');
    expect(operator.isLeader).toBe(false);
  });
});
