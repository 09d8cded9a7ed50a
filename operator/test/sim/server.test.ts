// The simulator's own behaviour beyond the conformance suite: what a real cluster cannot be
// made to do on demand (410 after compaction, injected faults, dropped watches) and the
// server-side defaults it applies, all through the real client library.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../src/kube/client.js';
import { loadKubeConfig, RealKubeClient } from '../../src/kube/real-client.js';
import { KubeApiError, type KubeObject } from '../../src/kube/types.js';
import { crdValidators } from './crd-validation.js';
import { ApiSimulator } from './server.js';
import { until } from '../support/until.js';

let simulator: ApiSimulator;
let client: RealKubeClient;

beforeEach(async () => {
  simulator = await ApiSimulator.start({ validators: crdValidators(), namespaces: ['sim', 'a', 'b'] });
  client = new RealKubeClient(loadKubeConfig({ kubeconfigYaml: simulator.kubeconfig('sim') }));
});

afterEach(async () => {
  await simulator.stop();
});

const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'sim' }, data });

describe('API simulator', () => {
  it('refuses a request without the bearer token', async () => {
    const response = await fetch(`${simulator.url}/api/v1/namespaces/sim/configmaps`);
    expect(response.status).toBe(401);
  });

  it('ends a watch from a compacted version with 410 Gone', async () => {
    await client.create('ConfigMap', configMap('a'));
    const { resourceVersion } = await client.list('ConfigMap', 'sim');
    await client.create('ConfigMap', configMap('b'));
    simulator.compact();
    let closedWith: unknown = 'open';
    await client.watch('ConfigMap', 'sim', { resourceVersion }, { onEvent: () => undefined, onClose: (error) => (closedWith = error) });
    await until(() => closedWith !== 'open');
    expect(closedWith).toBeInstanceOf(KubeApiError);
    expect((closedWith as KubeApiError).status).toBe(410);
  });

  it('compacts on its own beyond the history limit', async () => {
    await simulator.stop();
    simulator = await ApiSimulator.start({ historyLimit: 2, namespaces: ['sim'] });
    client = new RealKubeClient(loadKubeConfig({ kubeconfigYaml: simulator.kubeconfig('sim') }));
    const { resourceVersion } = await client.list('ConfigMap', 'sim');
    for (const name of ['a', 'b', 'c']) await client.create('ConfigMap', configMap(name));
    let closedWith: unknown = 'open';
    await client.watch('ConfigMap', 'sim', { resourceVersion }, { onEvent: () => undefined, onClose: (error) => (closedWith = error) });
    await until(() => closedWith !== 'open');
    expect((closedWith as KubeApiError).status).toBe(410);
  });

  it('fails the next N matching requests with the injected status, 429 with Retry-After', async () => {
    simulator.failNext(2, { status: 429, methods: ['POST'] });
    const first = await client.create('ConfigMap', configMap('x')).catch((error: unknown) => error);
    expect(first).toBeInstanceOf(KubeApiError);
    expect((first as KubeApiError).status).toBe(429);
    expect((first as KubeApiError).retryAfterSeconds).toBe(1);
    simulator.failNext(1, { status: 500, kinds: ['Secret'] });
    // The ConfigMap POST consumes the second 429; the Secret GET the 500; then all is well.
    await expect(client.create('ConfigMap', configMap('x'))).rejects.toMatchObject({ status: 429 });
    await expect(client.get('Secret', 'sim', 'none')).rejects.toMatchObject({ status: 500 });
    await expect(client.create('ConfigMap', configMap('x'))).resolves.toMatchObject({ metadata: { name: 'x' } });
  });

  it('drops open watches on demand; the stream ends for the client', async () => {
    const { resourceVersion } = await client.list('ConfigMap', 'sim');
    let closed = false;
    await client.watch('ConfigMap', 'sim', { resourceVersion }, { onEvent: () => undefined, onClose: () => (closed = true) });
    await until(() => simulator.openWatches === 1);
    expect(simulator.dropWatches()).toBe(1);
    await until(() => closed);
  });

  it('sends the current objects as ADDED to a watch without a version', async () => {
    await client.create('ConfigMap', configMap('present'));
    const events: WatchEvent[] = [];
    const handle = await client.watch('ConfigMap', 'sim', { resourceVersion: '' }, { onEvent: (event) => events.push(event), onClose: () => undefined });
    await until(() => events.length === 1);
    handle.stop();
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'present' } } });
  });

  it('defaults Deployment and Service fields as the API server does, and keeps clusterIP', async () => {
    const deployment = await client.create('Deployment', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: 'sim' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'img:1', ports: [{ containerPort: 80 }] }] } } },
    });
    expect(deployment.spec).toMatchObject({ replicas: 1, revisionHistoryLimit: 10, template: { spec: { dnsPolicy: 'ClusterFirst', containers: [{ imagePullPolicy: 'IfNotPresent', ports: [{ protocol: 'TCP' }] }] } } });
    const service = await client.create('Service', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'sim' }, spec: { selector: { a: 'b' }, ports: [{ port: 80 }] } });
    const clusterIP = (service.spec as unknown as { clusterIP: string }).clusterIP;
    expect(clusterIP).toMatch(/^10\.96\./);
    const replaced = await client.replace('Service', { ...service, spec: { selector: { a: 'c' }, ports: [{ port: 80 }] } });
    expect((replaced.spec as unknown as { clusterIP: string }).clusterIP).toBe(clusterIP);
  });

  it('orphans dependents when asked, and deletes them (through finalizers) otherwise', async () => {
    const owner = await client.create('ConfigMap', configMap('owner'));
    const reference = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid! }];
    await client.create('ConfigMap', { ...configMap('kept'), metadata: { name: 'kept', namespace: 'sim', ownerReferences: reference } });
    await client.delete('ConfigMap', 'sim', 'owner', { propagationPolicy: 'Orphan' });
    const kept = await client.get('ConfigMap', 'sim', 'kept');
    expect(kept?.metadata.ownerReferences).toBeUndefined();

    const second = await client.create('ConfigMap', configMap('owner2'));
    await client.create('ConfigMap', {
      ...configMap('held'),
      metadata: { name: 'held', namespace: 'sim', finalizers: ['x/y'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner2', uid: second.metadata.uid! }] },
    });
    await client.delete('ConfigMap', 'sim', 'owner2');
    const held = await client.get('ConfigMap', 'sim', 'held');
    expect(held?.metadata.deletionTimestamp).toBeTruthy();
    await expect(client.replace('ConfigMap', { ...held!, metadata: { ...held!.metadata, finalizers: ['x/y', 'x/z'] } })).rejects.toMatchObject({ status: 422 });
  });

  it('validates TokenizationPolicy specs from the generated CRD', async () => {
    const invalid = await client
      .create('TokenizationPolicy', {
        apiVersion: 'veil.dev/v1alpha1',
        kind: 'TokenizationPolicy',
        metadata: { name: 'p', namespace: 'sim' },
        spec: { policy: { name: 'p', version: '1', rules: [{ name: 'r', match: {}, action: 'explode' }] } },
      })
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(KubeApiError);
    expect((invalid as KubeApiError).status).toBe(422);
    expect((invalid as KubeApiError).message).toContain('spec.policy.rules[0].action');
  });
});
