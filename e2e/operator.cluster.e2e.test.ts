// The operator scenarios against a real Kubernetes API server (kind, k3d, any test cluster),
// run by `make e2e` when VEIL_E2E_KUBECONFIG names a kubeconfig. Preconditions: the CRDs are
// installed (`kubectl apply -f crds/`) and the namespace exists (VEIL_E2E_NAMESPACE, default
// `veil-e2e`, with no other Veil operator reconciling it). The operator runs in this process
// with leader election on a real Lease; two simulated server replicas read the key-ring Secret
// from the cluster and report what they loaded, one of them lagging during the rotation.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { parseKeyRingFile, parseOperatorSettings, type OperatorSettings } from '@veil/common';
import { Operator } from '../operator/src/operator.js';
import { OperatorMetrics } from '../operator/src/metrics.js';
import { loadKubeConfig, RealKubeClient } from '../operator/src/kube/real-client.js';
import { isNotFound, type ConfigMap, type Secret } from '../operator/src/kube/types.js';
import { UrlReplicaReporter } from '../operator/src/replicas/reporter.js';
import { conditionOf, FakeReplica, waitFor } from '../operator/src/testing/world.js';

const kubeconfigPath = process.env.VEIL_E2E_KUBECONFIG;

if (kubeconfigPath === undefined || kubeconfigPath === '') {
  describe('operator on a real cluster', () => {
    it.skip('SKIPPED: VEIL_E2E_KUBECONFIG is not set (point it at a kind or k3d cluster with crds/ applied to run these scenarios)', () => undefined);
  });
} else {
  describe('operator on a real cluster', () => {
    const namespace = process.env.VEIL_E2E_NAMESPACE ?? 'veil-e2e';
    const suffix = randomBytes(3).toString('hex');
    const client = new RealKubeClient(loadKubeConfig({ kubeconfigPath }));
    const parsed = parseOperatorSettings({
      VEIL_OPERATOR_NAMESPACE: namespace,
      VEIL_OPERATOR_POLICY_CONFIGMAP: `veil-e2e-policies-${suffix}`,
      VEIL_OPERATOR_KEYRING_SECRET: `veil-e2e-keyrings-${suffix}`,
      VEIL_OPERATOR_API_KEYS_SECRET: `veil-e2e-api-keys-${suffix}`,
      VEIL_OPERATOR_TENANTS_CONFIGMAP: `veil-e2e-tenants-${suffix}`,
      VEIL_OPERATOR_LEASE_NAME: `veil-e2e-${suffix}`,
      VEIL_OPERATOR_SESSION_TTL_SECONDS: '2',
    });
    const settings = parsed.settings as OperatorSettings;
    const readRing = () => client.get<Secret>('Secret', namespace, settings.keyRingSecret);
    const replicas = [new FakeReplica('replica-0', readRing), new FakeReplica('replica-1', readRing)];
    let operator: Operator | undefined;
    const policyName = `e2e-${suffix}`;
    const tenantName = `e2e-${suffix}`;

    afterAll(async () => {
      await operator?.stop();
      await Promise.all(replicas.map((replica) => replica.stop()));
      for (const [kind, name] of [
        ['TokenizationPolicy', policyName],
        ['Tenant', tenantName],
        ['ConfigMap', settings.policyConfigMap],
        ['ConfigMap', settings.tenantsConfigMap],
        ['Secret', settings.keyRingSecret],
        ['Secret', settings.apiKeysSecret],
        ['Lease', settings.leaseName],
      ] as const) {
        await client.delete(kind, namespace, name).catch(() => undefined);
      }
    });

    it('publishes a policy, then rotates a tenant key ring gated on replica reports', async () => {
      await client.list('Tenant', namespace).catch((error: unknown) => {
        throw new Error(isNotFound(error) ? 'the Veil CRDs are not installed: kubectl apply -f crds/' : String(error));
      });
      await Promise.all(replicas.map((replica) => replica.start()));
      operator = new Operator({
        client,
        settings,
        metrics: new OperatorMetrics(),
        identity: `e2e-${suffix}`,
        reporter: new UrlReplicaReporter(() => replicas.map((replica) => ({ name: replica.name, url: replica.url }))),
        lease: { durationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 1000 },
        pollIntervalMs: 500,
      });
      operator.start();

      await client.create('TokenizationPolicy', {
        apiVersion: 'veil.dev/v1alpha1',
        kind: 'TokenizationPolicy',
        metadata: { name: policyName, namespace },
        spec: { policy: { name: policyName, version: '1.0.0', rules: [{ name: 'all', match: {}, action: 'tokenize' }] } },
      });
      await waitFor(async () => (await client.get<ConfigMap>('ConfigMap', namespace, settings.policyConfigMap))?.data?.[`${policyName}.yaml`], 60_000, 'the policy ConfigMap');
      await waitFor(async () => conditionOf(await client.get('TokenizationPolicy', namespace, policyName), 'Published')?.status === 'True', 60_000, 'Published');

      await client.create('Tenant', { apiVersion: 'veil.dev/v1alpha1', kind: 'Tenant', metadata: { name: tenantName, namespace }, spec: { tenantId: tenantName } });
      const initial = await waitFor(async () => ((await client.get('Tenant', namespace, tenantName))?.status as { currentKid?: string } | undefined)?.currentKid, 60_000, 'the first key');
      await replicas[1]!.freeze();
      const tenant = (await client.get('Tenant', namespace, tenantName))!;
      await client.replace('Tenant', { ...tenant, spec: { tenantId: tenantName, sessionKeys: { rotateAt: new Date().toISOString() } } });
      await waitFor(async () => conditionOf(await client.get('Tenant', namespace, tenantName), 'KeysPublished')?.message.includes('replica-1') === true, 60_000, 'Staging to wait on the lagging replica');
      expect(((await client.get('Tenant', namespace, tenantName))?.status as { rotation: { phase: string } }).rotation.phase).toBe('Staging');
      replicas[1]!.thaw();
      const done = await waitFor(
        async () => {
          const status = (await client.get('Tenant', namespace, tenantName))?.status as { rotation?: { phase: string }; currentKid?: string; keys?: unknown[] } | undefined;
          return status?.rotation?.phase === 'Idle' && status.currentKid !== initial && status.keys?.length === 1 ? status : undefined;
        },
        120_000,
        'the rotation to complete',
      );
      const secret = await readRing();
      const ring = parseKeyRingFile(Buffer.from(secret!.data![`${tenantName}.json`]!, 'base64').toString('utf8'), 'ring');
      expect(ring.ok && ring.value.current_kid).toBe(done.currentKid);
    });
  });
}
