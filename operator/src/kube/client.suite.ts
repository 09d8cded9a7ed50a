// Conformance suite for the KubeClient: the behaviour of the Kubernetes API the operator relies
// on. It runs against the API simulator (client.sim.test.ts) and against a real kube-apiserver
// (e2e/kubernetes.cluster.e2e.test.ts; `make test` starts one), which is what keeps the simulator honest:
// strict field validation, unconditional updates of built-in kinds, namespaces that must exist,
// label and MicroTime validation, set-based and field selectors, server-side apply ownership and
// conflicts, conditional JSON patches and deletes. Only namespaced objects with random names are
// created, and removed after.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeClient, WatchEvent } from './client.js';
import { isAlreadyExists, isConflict, KubeApiError, type ConfigMap, type KubeObject, type Lease } from './types.js';
import { microTime } from './leader.js';

export interface ConformanceTarget {
  readonly client: KubeClient;
  readonly namespace: string;
  /** Whether the Veil CRDs are installed (the CRD cases are skipped with this reason otherwise). */
  readonly crdsInstalled: boolean;
}

async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function failure(promise: Promise<unknown>): Promise<KubeApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof KubeApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

export function kubeClientConformance(label: string, setup: () => Promise<ConformanceTarget>): void {
  describe(`KubeClient conformance: ${label}`, () => {
    const suffix = randomBytes(3).toString('hex');
    const created: { kind: 'ConfigMap' | 'Secret' | 'Lease' | 'Tenant' | 'TokenizationPolicy'; name: string }[] = [];
    const cm = (namespace: string, objectName: string, data: Record<string, string>, extra: Partial<ConfigMap['metadata']> = {}): ConfigMap => {
      created.push({ kind: 'ConfigMap', name: objectName });
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: objectName, namespace, ...extra }, data };
    };
    let target: ConformanceTarget | undefined;
    const get = async (): Promise<ConformanceTarget> => (target ??= await setup());
    const name = (base: string): string => `veil-conf-${base}-${suffix}`;
    const configMap = (namespace: string, objectName: string, data: Record<string, string>, extra: Partial<ConfigMap['metadata']> = {}): ConfigMap => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: objectName, namespace, ...extra },
      data,
    });

    afterAll(async () => {
      if (target === undefined) return;
      for (const entry of created) {
        const object = await target.client.get(entry.kind, target.namespace, entry.name).catch(() => undefined);
        if (object?.metadata.finalizers !== undefined) await target.client.replace(entry.kind, { ...object, metadata: { ...object.metadata, finalizers: [] } }).catch(() => undefined);
        await target.client.delete(entry.kind, target.namespace, entry.name).catch(() => undefined);
      }
    });

    it('creates, reads back and reports a missing object as undefined', async () => {
      const { client, namespace } = await get();
      const objectName = name('crud');
      created.push({ kind: 'ConfigMap', name: objectName });
      const written = await client.create('ConfigMap', configMap(namespace, objectName, { 'a.yaml': 'x: 1\n' }));
      expect(written.metadata.uid).toBeTruthy();
      expect(written.metadata.resourceVersion).toBeTruthy();
      expect(written.metadata.creationTimestamp).toBeTruthy();
      const read = await client.get<ConfigMap>('ConfigMap', namespace, objectName);
      expect(read?.data).toEqual({ 'a.yaml': 'x: 1\n' });
      expect(read?.metadata.uid).toBe(written.metadata.uid);
      expect(await client.get('ConfigMap', namespace, name('absent'))).toBeUndefined();
      expect(isAlreadyExists(await failure(client.create('ConfigMap', configMap(namespace, objectName, {}))))).toBe(true);
    });

    it('replaces optimistically: the current version wins, a stale one gets 409, a no-op keeps the version', async () => {
      const { client, namespace } = await get();
      const objectName = name('occ');
      created.push({ kind: 'ConfigMap', name: objectName });
      const first = await client.create('ConfigMap', configMap(namespace, objectName, { k: 'v1' }));
      const second = await client.replace('ConfigMap', { ...first, data: { k: 'v2' } });
      expect(second.metadata.resourceVersion).not.toBe(first.metadata.resourceVersion);
      expect(isConflict(await failure(client.replace('ConfigMap', { ...first, data: { k: 'v3' } })))).toBe(true);
      const same = await client.replace('ConfigMap', second);
      expect(same.metadata.resourceVersion).toBe(second.metadata.resourceVersion);
      expect((await client.get<ConfigMap>('ConfigMap', namespace, objectName))?.data).toEqual({ k: 'v2' });
    });

    it('lists with a resourceVersion and an equality label selector, items whole', async () => {
      const { client, namespace } = await get();
      const [one, two] = [name('list-a'), name('list-b')];
      created.push({ kind: 'ConfigMap', name: one }, { kind: 'ConfigMap', name: two });
      await client.create('ConfigMap', configMap(namespace, one, {}, { labels: { 'veil.dev/conformance': suffix, side: 'a' } }));
      await client.create('ConfigMap', configMap(namespace, two, {}, { labels: { 'veil.dev/conformance': suffix, side: 'b' } }));
      const both = await client.list('ConfigMap', namespace, { labelSelector: `veil.dev/conformance=${suffix}` });
      expect(both.resourceVersion).toMatch(/^\d+$/);
      expect(both.items.map((item) => item.metadata.name).sort()).toEqual([one, two]);
      expect(both.items.every((item) => item.kind === 'ConfigMap' && item.apiVersion === 'v1')).toBe(true);
      const onlyA = await client.list('ConfigMap', namespace, { labelSelector: `veil.dev/conformance=${suffix},side=a` });
      expect(onlyA.items.map((item) => item.metadata.name)).toEqual([one]);
    });

    it('watches from a list version: every later change in order, and resumes from a version', async () => {
      const { client, namespace } = await get();
      const objectName = name('watch');
      created.push({ kind: 'ConfigMap', name: objectName });
      const selector = `veil.dev/watch=${suffix}`;
      const start = await client.list('ConfigMap', namespace, { labelSelector: selector });
      const events: WatchEvent[] = [];
      const handle = await client.watch('ConfigMap', namespace, { resourceVersion: start.resourceVersion, labelSelector: selector }, { onEvent: (event) => events.push(event), onClose: () => undefined });
      const made = await client.create('ConfigMap', configMap(namespace, objectName, { n: '1' }, { labels: { 'veil.dev/watch': suffix } }));
      const changed = await client.replace('ConfigMap', { ...made, data: { n: '2' } });
      await client.delete('ConfigMap', namespace, objectName);
      await eventually(() => events.filter((event) => event.type !== 'BOOKMARK').length >= 3);
      handle.stop();
      const seen = events.filter((event) => event.type !== 'BOOKMARK');
      expect(seen.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect((seen[1]!.object as ConfigMap).data).toEqual({ n: '2' });
      expect(seen[2]!.object.metadata.name).toBe(objectName);

      // Resume from the version of the MODIFIED event: only the deletion is replayed.
      const replayed: WatchEvent[] = [];
      const resumed = await client.watch('ConfigMap', namespace, { resourceVersion: changed.metadata.resourceVersion!, labelSelector: selector }, { onEvent: (event) => replayed.push(event), onClose: () => undefined });
      await eventually(() => replayed.some((event) => event.type === 'DELETED'));
      resumed.stop();
      expect(replayed.filter((event) => event.type !== 'BOOKMARK').map((event) => event.type)).toEqual(['DELETED']);
    });

    it('refuses unknown fields (strict field validation) on built-in kinds with 400', async () => {
      const { client, namespace } = await get();
      const error = await failure(client.create('ConfigMap', { ...cm(namespace, name('strict'), { a: '1' }), bogus: true }));
      expect([error.status, error.reason]).toEqual([400, 'BadRequest']);
      expect(error.message).toContain('unknown field "bogus"');
      expect(await client.get('ConfigMap', namespace, name('strict'))).toBeUndefined();
    });

    it('updates a built-in kind without a resourceVersion (unconditionally)', async () => {
      const { client, namespace } = await get();
      const objectName = name('uncond');
      await client.create('ConfigMap', cm(namespace, objectName, { k: 'v1' }));
      const replaced = await client.replace('ConfigMap', configMap(namespace, objectName, { k: 'v2' }));
      expect(replaced.data).toEqual({ k: 'v2' });
    });

    it('refuses a create in a namespace that does not exist with 404', async () => {
      const { client } = await get();
      const error = await failure(client.create('ConfigMap', configMap(`veil-absent-${suffix}`, name('nons'), {})));
      expect([error.status, error.reason]).toEqual([404, 'NotFound']);
    });

    it('refuses a ConfigMap key outside [-._a-zA-Z0-9] with 422', async () => {
      const { client, namespace } = await get();
      const error = await failure(client.create('ConfigMap', cm(namespace, name('key'), { 'a/b': '1' })));
      expect([error.status, error.reason]).toEqual([422, 'Invalid']);
      expect(error.message).toContain('a valid config key must consist of alphanumeric characters');
    });

    it('refuses a label value over 63 characters with 422', async () => {
      const { client, namespace } = await get();
      const error = await failure(client.create('ConfigMap', cm(namespace, name('label'), {}, { labels: { long: 'x'.repeat(64) } })));
      expect([error.status, error.reason]).toEqual([422, 'Invalid']);
      expect(error.message).toContain('must be no more than 63 characters');
    });

    it('refuses Lease times without six fractional digits with 400', async () => {
      const { client, namespace } = await get();
      const leaseName = name('microtime');
      created.push({ kind: 'Lease', name: leaseName });
      for (const time of ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.123Z']) {
        const error = await failure(client.create<Lease>('Lease', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: leaseName, namespace }, spec: { holderIdentity: 'a', renewTime: time } }));
        expect([error.status, error.reason]).toEqual([400, 'BadRequest']);
      }
    });

    it('lists with set-based label selectors and a metadata.name field selector', async () => {
      const { client, namespace } = await get();
      const [one, two, three] = [name('set-a'), name('set-b'), name('set-c')];
      await client.create('ConfigMap', cm(namespace, one, {}, { labels: { 'veil.dev/set': suffix, tier: 'web' } }));
      await client.create('ConfigMap', cm(namespace, two, {}, { labels: { 'veil.dev/set': suffix, tier: 'db', gone: 'y' } }));
      await client.create('ConfigMap', cm(namespace, three, {}, { labels: { 'veil.dev/set': suffix, tier: 'cache' } }));
      const names = async (labelSelector: string, fieldSelector?: string): Promise<string[]> =>
        (await client.list('ConfigMap', namespace, { labelSelector, ...(fieldSelector === undefined ? {} : { fieldSelector }) })).items.map((item) => item.metadata.name).sort();
      expect(await names(`veil.dev/set=${suffix},tier in (web,db)`)).toEqual([one, two]);
      expect(await names(`veil.dev/set=${suffix},tier notin (web),!gone`)).toEqual([three]);
      expect(await names(`veil.dev/set in (${suffix}),gone`)).toEqual([two]);
      expect(await names(`veil.dev/set=${suffix}`, `metadata.name=${three}`)).toEqual([three]);
    });

    it('server-side apply: creates, owns what it applies, keeps other managers\' fields, conflicts without force, removes what it stops applying', async () => {
      const { client, namespace } = await get();
      const objectName = name('apply');
      const applied = (data: Record<string, string>, resourceVersion?: string): ConfigMap => ({
        ...configMap(namespace, objectName, data, { labels: { 'veil.dev/owner': 'operator' } }),
        ...(resourceVersion === undefined ? {} : { metadata: { name: objectName, namespace, labels: { 'veil.dev/owner': 'operator' }, resourceVersion } }),
      });
      created.push({ kind: 'ConfigMap', name: objectName });
      const first = await client.apply('ConfigMap', applied({ a: '1', b: '2' }));
      expect(first.data).toEqual({ a: '1', b: '2' });
      // A rival manager adds its own key and label: allowed, and kept by the operator's next apply.
      await client.apply('ConfigMap', { ...configMap(namespace, objectName, { rival: 'r' }, { labels: { 'rival/label': 'x' } }) }, { fieldManager: 'rival', force: false });
      // Changing a key the operator owns conflicts unless forced.
      const conflict = await failure(client.apply('ConfigMap', configMap(namespace, objectName, { a: 'hijacked' }), { fieldManager: 'rival', force: false }));
      expect([conflict.status, conflict.reason]).toEqual([409, 'Conflict']);
      expect(conflict.message).toContain('conflict with "veil-operator"');
      const second = await client.apply('ConfigMap', applied({ a: '1' }));
      expect(second.data).toEqual({ a: '1', rival: 'r' });
      expect(second.metadata.labels).toEqual({ 'veil.dev/owner': 'operator', 'rival/label': 'x' });
      // A resourceVersion in the apply configuration is a precondition.
      const stale = await failure(client.apply('ConfigMap', applied({ a: '2' }, first.metadata.resourceVersion)));
      expect([stale.status, stale.reason]).toEqual([409, 'Conflict']);
      const current = await client.apply('ConfigMap', applied({ a: '2' }, second.metadata.resourceVersion));
      expect(current.data).toEqual({ a: '2', rival: 'r' });
      // Forced, the rival takes the operator's key; the operator's next forced apply takes it back.
      await client.apply('ConfigMap', configMap(namespace, objectName, { a: 'hijacked', rival: 'r' }), { fieldManager: 'rival', force: true });
      expect((await client.apply('ConfigMap', applied({ a: '2' }))).data).toEqual({ a: '2', rival: 'r' });
    });

    it('JSON patch: conditional on a replaced resourceVersion (409); a missing path is 422', async () => {
      const { client, namespace } = await get();
      const objectName = name('jsonpatch');
      const made = await client.create('ConfigMap', cm(namespace, objectName, { keep: '1', drop: '2', 'also.drop': '3' }));
      const patched = await client.patch<ConfigMap>('ConfigMap', namespace, objectName, [
        { op: 'replace', path: '/metadata/resourceVersion', value: made.metadata.resourceVersion },
        { op: 'remove', path: '/data/drop' },
        { op: 'remove', path: '/data/also.drop' },
      ]);
      expect(patched.data).toEqual({ keep: '1' });
      const stale = await failure(client.patch('ConfigMap', namespace, objectName, [{ op: 'replace', path: '/metadata/resourceVersion', value: made.metadata.resourceVersion }, { op: 'remove', path: '/data/keep' }]));
      expect([stale.status, stale.reason]).toEqual([409, 'Conflict']);
      const missing = await failure(client.patch('ConfigMap', namespace, objectName, [{ op: 'remove', path: '/data/absent' }]));
      expect(missing.status).toBe(422);
    });

    it('deletes idempotently and honours a uid precondition', async () => {
      const { client, namespace } = await get();
      const objectName = name('delete');
      created.push({ kind: 'ConfigMap', name: objectName });
      await client.create('ConfigMap', configMap(namespace, objectName, {}));
      expect(isConflict(await failure(client.delete('ConfigMap', namespace, objectName, { uid: '00000000-0000-0000-0000-000000000000' })))).toBe(true);
      const current = await client.get('ConfigMap', namespace, objectName);
      expect(isConflict(await failure(client.delete('ConfigMap', namespace, objectName, { resourceVersion: String(Number(current!.metadata.resourceVersion) - 1) })))).toBe(true);
      await client.delete('ConfigMap', namespace, objectName, { resourceVersion: current!.metadata.resourceVersion! });
      await eventually(async () => (await client.get('ConfigMap', namespace, objectName)) === undefined);
      await client.delete('ConfigMap', namespace, objectName);
    });

    it('keeps an object with finalizers until they are removed', async () => {
      const { client, namespace } = await get();
      const objectName = name('final');
      created.push({ kind: 'ConfigMap', name: objectName });
      await client.create('ConfigMap', configMap(namespace, objectName, {}, { finalizers: ['veil.dev/conformance'] }));
      await client.delete('ConfigMap', namespace, objectName);
      const lingering = await client.get('ConfigMap', namespace, objectName);
      expect(lingering?.metadata.deletionTimestamp).toBeTruthy();
      await client.replace('ConfigMap', { ...lingering!, metadata: { ...lingering!.metadata, finalizers: [] } });
      await eventually(async () => (await client.get('ConfigMap', namespace, objectName)) === undefined);
    });

    it('garbage-collects a dependent when its only owner is deleted', async () => {
      const { client, namespace } = await get();
      const [ownerName, dependentName] = [name('owner'), name('dependent')];
      created.push({ kind: 'ConfigMap', name: ownerName }, { kind: 'ConfigMap', name: dependentName });
      const owner = await client.create('ConfigMap', configMap(namespace, ownerName, {}));
      await client.create(
        'ConfigMap',
        configMap(namespace, dependentName, {}, { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: ownerName, uid: owner.metadata.uid!, controller: true }] }),
      );
      await client.delete('ConfigMap', namespace, ownerName);
      await eventually(async () => (await client.get('ConfigMap', namespace, dependentName)) === undefined, 60_000);
    });

    it('stores Secret data as base64 and Leases with MicroTime', async () => {
      const { client, namespace } = await get();
      const [secretName, leaseName] = [name('secret'), name('lease')];
      created.push({ kind: 'Secret', name: secretName }, { kind: 'Lease', name: leaseName });
      await client.create('Secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: secretName, namespace }, type: 'Opaque', data: { key: Buffer.from('value').toString('base64') } });
      const secret = await client.get('Secret', namespace, secretName);
      expect(Buffer.from((secret?.data as Record<string, string>).key!, 'base64').toString()).toBe('value');
      const now = Date.now();
      const lease = await client.create<Lease>('Lease', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: leaseName, namespace },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
      });
      expect(Date.parse(lease.spec!.renewTime!)).toBe(now);
      const taken = await client.replace<Lease>('Lease', { ...lease, spec: { ...lease.spec, holderIdentity: 'b', leaseTransitions: 1 } });
      expect(taken.spec?.holderIdentity).toBe('b');
      expect(isConflict(await failure(client.replace<Lease>('Lease', { ...lease, spec: { ...lease.spec, holderIdentity: 'c' } })))).toBe(true);
    });

    describe('custom resources', () => {
      const tenant = (namespace: string, objectName: string, tenantId: string): KubeObject => ({
        apiVersion: 'veil.dev/v1alpha1',
        kind: 'Tenant',
        metadata: { name: objectName, namespace },
        spec: { tenantId },
        status: { currentKid: 'ignored-on-create' },
      });

      it('bumps generation on spec changes only; status lives in its subresource', async (context) => {
        const { client, namespace, crdsInstalled } = await get();
        if (!crdsInstalled) context.skip('the Veil CRDs are not installed in this cluster');
        const objectName = name('tenant');
        created.push({ kind: 'Tenant', name: objectName });
        const made = await client.create('Tenant', tenant(namespace, objectName, `t-${suffix}`));
        expect(made.metadata.generation).toBe(1);
        expect(made.status).toBeUndefined();
        const labelled = await client.replace('Tenant', { ...made, metadata: { ...made.metadata, labels: { a: 'b' } } });
        expect(labelled.metadata.generation).toBe(1);
        const respecced = await client.replace('Tenant', { ...labelled, spec: { tenantId: `t-${suffix}`, policies: ['default'] }, status: { currentKid: 'ignored' } });
        expect(respecced.metadata.generation).toBe(2);
        expect(respecced.status).toBeUndefined();
        const withStatus = await client.patchStatus('Tenant', namespace, objectName, { currentKid: 'k1', observedGeneration: 2 }, respecced.metadata.resourceVersion);
        expect(withStatus.status).toMatchObject({ currentKid: 'k1', observedGeneration: 2 });
        expect(withStatus.metadata.generation).toBe(2);
        expect(isConflict(await failure(client.patchStatus('Tenant', namespace, objectName, { currentKid: 'k2' }, respecced.metadata.resourceVersion)))).toBe(true);
        const cleared = await client.patchStatus('Tenant', namespace, objectName, { currentKid: null });
        expect((cleared.status as Record<string, unknown>).currentKid).toBeUndefined();
      });

      it('refuses an unknown spec field with 400 (strict), not pruning it silently', async (context) => {
        const { client, namespace, crdsInstalled } = await get();
        if (!crdsInstalled) context.skip('the Veil CRDs are not installed in this cluster');
        const objectName = name('tenant-strict');
        created.push({ kind: 'Tenant', name: objectName });
        const error = await failure(client.create('Tenant', { ...tenant(namespace, objectName, `t-${suffix}`), status: undefined, spec: { tenantId: `t-${suffix}`, bogus: 1 } }));
        expect([error.status, error.reason]).toEqual([400, 'BadRequest']);
        expect(error.message).toContain('unknown field "spec.bogus"');
        const made = await client.create('Tenant', { ...tenant(namespace, objectName, `t-${suffix}`), status: undefined });
        const unconditional = await failure(client.replace('Tenant', { ...made, metadata: { name: objectName, namespace }, spec: { tenantId: `t-${suffix}`, policies: [] } }));
        expect([unconditional.status, unconditional.reason]).toEqual([422, 'Invalid']);
      });

      it('rejects an invalid object and a changed immutable field with 422', async (context) => {
        const { client, namespace, crdsInstalled } = await get();
        if (!crdsInstalled) context.skip('the Veil CRDs are not installed in this cluster');
        const objectName = name('tenant-invalid');
        created.push({ kind: 'Tenant', name: objectName });
        const bad = await failure(client.create('Tenant', { ...tenant(namespace, objectName, 'has spaces'), status: undefined }));
        expect(bad.status).toBe(422);
        const made = await client.create('Tenant', tenant(namespace, objectName, `t-${suffix}`));
        const changed = await failure(client.replace('Tenant', { ...made, spec: { tenantId: `other-${suffix}` } }));
        expect(changed.status).toBe(422);
        expect(changed.message).toContain('tenantId');
      });
    });
  });
}
