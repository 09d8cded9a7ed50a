// Veil on a real Kubernetes control plane (kube-apiserver, controller manager, scheduler, kwok:
// scripts/k8s-testenv.sh, started around `make test`; or any test cluster in
// VEIL_E2E_KUBECONFIG). One file, run in order, because the steps share one cluster:
//
//   1. the CRDs through kubectl, client-side and server-side apply, and every validation the
//      docs promise (valid and invalid objects, read as kubectl reads YAML);
//   2. the quick start of docs/kubernetes.md, command by command: helm install (the CRDs come
//      from the chart) into a PodSecurity-restricted namespace, the operator's RBAC checked with
//      `kubectl auth can-i` as its ServiceAccount, two operator processes running as that
//      ServiceAccount and electing a leader (and handing over), real `veil serve` processes for
//      the server Pods (e2e/support/cluster.ts: a kubelet stand-in projecting the mounted
//      ConfigMaps and Secrets from the cluster), policy publication, the tenant's key ring, a
//      transform and rehydrate round trip, a three-phase rotation under traffic gated on what
//      those servers report, helm upgrade with changed values, helm rollback, and helm uninstall:
//      what it keeps, what the garbage collector removes, the Lease deleted on shutdown;
//   3. the KubeClient conformance suite (operator/src/kube/client.suite.ts) against this server.
//
// Skipped, with the reason, when no cluster is configured (make test prints why).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseKeyRingFile, parseYamlDocuments } from '@veil/common';
import { ringFingerprint } from '../operator/src/controllers/tenant/rotation.js';
import { kubeClientConformance } from '../operator/src/kube/client.suite.js';
import { loadKubeConfig, RealKubeClient } from '../operator/src/kube/real-client.js';
import { isNotFound, type KubeObject, type Lease, type Secret } from '../operator/src/kube/types.js';
import { waitFor } from '../operator/test/support/world.js';
import { freePort, startLocalRedis, type LocalRedis } from '../server/test/support/redis.js';
import { clusterTools, KUBECONFIG, PodKubelet, run, sectionCommands, serviceAccountKubeconfig, startOperatorProcess, type CommandResult, type RunningProcess, type Tools } from './support/cluster.js';
import { postJson, ROOT } from './support/server.js';
import { tenantTraffic } from './support/traffic.js';

type Obj = Record<string, any>;

const DOCS = readFileSync(join(ROOT, 'docs/kubernetes.md'), 'utf8');
const NS = 'veil';
const KEYS_NS = 'veil-tenant-keys';
const CRD_NAMES = ['tenants.veil.dev', 'tokenizationpolicies.veil.dev'];
/** Test-only addition to the documented `helm install`: the shortest session TTL the chart allows, so Retiring ends within the test. */
const HELM_TEST_FLAGS = ['--set', 'server.sessionTtlSeconds=60'];
const TENANT_KEY = 'replace-with-a-long-random-key-1';

/** The YAML blocks of docs/kubernetes.md holding `kind` (as written: kubectl reads them). */
function docsBlock(kind: string): string {
  const block = [...DOCS.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1]!).find((text) => new RegExp(`^kind: ${kind}$`, 'm').test(text));
  if (block === undefined) throw new Error(`docs/kubernetes.md has no ${kind} example`);
  return block;
}

if (KUBECONFIG === '') {
  describe('Veil on a real Kubernetes control plane', () => {
    it.skip('SKIPPED: VEIL_E2E_KUBECONFIG is not set (make test starts scripts/k8s-testenv.sh and sets it; it needs Go and the Go module proxy)', () => undefined);
  });
} else {
  const client = new RealKubeClient(loadKubeConfig({ kubeconfigPath: KUBECONFIG }));
  let tools: Tools;
  const kubectl = (args: readonly string[], input?: string): Promise<CommandResult> => run(tools.kubectl, args, { env: tools.env, ...(input === undefined ? {} : { input }) });
  const ok = async (result: Promise<CommandResult>): Promise<string> => {
    const done = await result;
    if (done.code !== 0) throw new Error(`command failed (${done.code}): ${done.stderr}${done.stdout}`);
    return done.stdout;
  };

  beforeAll(async () => {
    tools = await clusterTools();
    expect(await ok(kubectl(['get', '--raw', '/readyz']))).toBe('ok');
  }, 600_000);

  describe('CRDs through kubectl', () => {
    const CHECK_NS = `veil-crd-check-${randomBytes(3).toString('hex')}`;
    afterAll(async () => {
      await kubectl(['delete', 'namespace', CHECK_NS, '--wait=false']);
    });

    it('applies them client-side and server-side, and they are established', async () => {
      await ok(kubectl(['apply', '-f', 'crds/']));
      await ok(kubectl(['wait', '--for=condition=established', '--timeout=60s', ...CRD_NAMES.map((name) => `crd/${name}`)]));
      // The documented upgrade path, over the client-side apply (field ownership migrates).
      await ok(kubectl(['apply', '--server-side', '-f', 'crds/']));
      await ok(kubectl(['apply', '--server-side', '-f', 'charts/veil/crds/']));
      await ok(kubectl(['create', 'namespace', CHECK_NS]));
    }, 300_000);

    // Each promise of docs/kubernetes.md ("Rules the API server enforces") and of policies.md, as
    // YAML a user would paste; `kubectl apply --dry-run=server` runs the API server's validation.
    const tenant = (spec: string): string => `apiVersion: veil.dev/v1alpha1\nkind: Tenant\nmetadata:\n  name: t\n  namespace: ${CHECK_NS}\nspec:\n${spec}`;
    const policy = (name: string, extra = ''): string =>
      `apiVersion: veil.dev/v1alpha1\nkind: TokenizationPolicy\nmetadata:\n  name: p\n  namespace: ${CHECK_NS}\nspec:\n  policy:\n    name: ${name}\n    version: "1"\n    rules: [{name: all, match: {}, action: tokenize}]\n${extra}`;
    const VALID: [string, string][] = [
      ['the documented TokenizationPolicy', docsBlock('TokenizationPolicy').replace(/^(\s*namespace:) veil$/m, `$1 ${CHECK_NS}`)],
      ['the documented Tenant', parseAllDocuments(docsBlock('Tenant')).map((document) => document.toString()).find((text) => text.includes('kind: Tenant'))!.replace(/^(\s*namespace:) veil$/m, `$1 ${CHECK_NS}`)],
      ['rotationPeriod 90m', tenant('  tenantId: acme\n  sessionKeys: {rotationPeriod: 90m}\n')],
      ['rotationPeriod 1h30m', tenant('  tenantId: acme\n  sessionKeys: {rotationPeriod: 1h30m}\n')],
      ['tenantId with the allowed punctuation', tenant('  tenantId: "acme.eu:prod_1-a"\n')],
      ['a quoted "n" strategy field', policy('p', '    restore_strategies:\n      last4: {kind: reveal_last_n, "n": 4}\n')],
    ];
    const INVALID: [string, string, RegExp][] = [
      ['a tenantId with a space', tenant('  tenantId: "has space"\n'), /spec\.tenantId/],
      ['a tenantId over 128 characters', tenant(`  tenantId: ${'a'.repeat(129)}\n`), /spec\.tenantId/],
      ['two API keys with one identity', tenant('  tenantId: acme\n  apiKeys:\n    - {identity: app, secretRef: {name: k, key: a}}\n    - {identity: app, secretRef: {name: k, key: b}}\n'), /Duplicate value/],
      ['a scope the server does not know', tenant('  tenantId: acme\n  apiKeys: [{identity: app, secretRef: {name: k, key: a}, scopes: [superuser]}]\n'), /Unsupported value: "superuser"/],
      ['an empty rateLimit', tenant('  tenantId: acme\n  rateLimit: {}\n'), /spec\.rateLimit/],
      ['rotationPeriod below 1h', tenant('  tenantId: acme\n  sessionKeys: {rotationPeriod: 30m}\n'), /rotationPeriod must be at least 1h/],
      ['rotationPeriod in days', tenant('  tenantId: acme\n  sessionKeys: {rotationPeriod: 1d}\n'), /spec\.sessionKeys\.rotationPeriod/],
      ['rotateAt that is no date-time', tenant('  tenantId: acme\n  sessionKeys: {rotateAt: tomorrow}\n'), /spec\.sessionKeys\.rotateAt/],
      ['an unknown Tenant field', tenant('  tenantId: acme\n  color: blue\n'), /unknown field "spec\.color"/],
      ['spec.policy.name other than metadata.name', policy('q'), /spec\.policy\.name must equal metadata\.name/],
      ['an unknown policy key', policy('p', '    extra: true\n'), /unknown field "spec\.policy\.extra"/],
      ['an unknown action', policy('p').replace('action: tokenize', 'action: encrypt'), /Unsupported value: "encrypt"/],
      ['a strategy field of another kind', policy('p', '    restore_strategies:\n      s: {kind: reveal_last_n, "n": 3, start: 1}\n'), /spec\.policy\.restore_strategies\.s/],
      // YAML 1.1: a bare n is the boolean false, so the field does not exist (policies.md says to quote it).
      ['a bare n (YAML 1.1 false)', policy('p', '    restore_strategies:\n      last4: {kind: reveal_last_n, n: 4}\n'), /unknown field "spec\.policy\.restore_strategies\.last4\.false"/],
    ];

    for (const [name, text] of VALID) {
      it(`accepts ${name}`, async () => {
        const result = await kubectl(['apply', '--dry-run=server', '-f', '-'], text);
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
      });
    }
    for (const [name, text, message] of INVALID) {
      it(`refuses ${name}`, async () => {
        const result = await kubectl(['apply', '--dry-run=server', '-f', '-'], text);
        expect(result.code).not.toBe(0);
        expect(result.stderr).toMatch(message);
      });
    }

    it('accepts every policy of policies/ as spec.policy, and refuses a changed tenantId (immutable)', async () => {
      for (const file of ['default', 'healthcare', 'support-desk']) {
        const body = parseYamlDocuments(readFileSync(join(ROOT, 'policies', `${file}.yaml`), 'utf8'), '1.1')[0] as Obj;
        const name = String(body['name']).replace(/_/g, '-');
        const object = { apiVersion: 'veil.dev/v1alpha1', kind: 'TokenizationPolicy', metadata: { name, namespace: CHECK_NS }, spec: { policy: { ...body, name } } };
        const result = await kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(object));
        expect(result.stderr, file).toBe('');
      }
      await ok(kubectl(['apply', '-f', '-'], tenant('  tenantId: acme\n')));
      const changed = await kubectl(['apply', '-f', '-'], tenant('  tenantId: other\n'));
      expect(changed.code).not.toBe(0);
      expect(changed.stderr).toMatch(/tenantId is immutable/);
    }, 300_000);

    it('can be deleted (helm install then creates them from the chart)', async () => {
      await ok(kubectl(['delete', 'namespace', CHECK_NS, '--wait=true', '--timeout=120s']));
      await ok(kubectl(['delete', '-f', 'crds/', '--wait=true', '--timeout=120s']));
      await waitFor(async () => (await kubectl(['get', 'crd', ...CRD_NAMES])).code !== 0, 60_000, 'the CRDs to go');
    }, 300_000);
  });

  describe('the quick start of docs/kubernetes.md', () => {
    const commands = sectionCommands(DOCS, 'Quick start');
    // Where the documented commands run: their relative paths (charts/, crds/, policy.yaml,
    // tenant.yaml) resolve here.
    const workdir = mkdtempSync(join(tmpdir(), 'veil-quickstart-'));
    const operators: RunningProcess[] = [];
    const kubelets: PodKubelet[] = [];
    let redis: LocalRedis | undefined;
    const ran: string[] = [];

    /** Run the next documented command(s) matching `pattern`, in order; any command it skips over is a test failure. */
    const runDocumented = async (pattern: RegExp, extraArgs: readonly string[] = []): Promise<string> => {
      const next = commands.shift();
      if (next === undefined || !pattern.test(next)) throw new Error(`the quick start's next command is ${JSON.stringify(next)}, expected ${String(pattern)}`);
      ran.push(next);
      const result = await run('bash', ['-c', `${next} ${extraArgs.map((arg) => `'${arg}'`).join(' ')}`], { env: tools.env, timeoutMs: 600_000, cwd: workdir });
      if (result.code !== 0) throw new Error(`\`${next}\` failed (${result.code}): ${result.stderr}${result.stdout}`);
      return result.stdout;
    };
    /** A documented command this suite cannot run as written here; the reason is in the caller. */
    const skipDocumented = (pattern: RegExp): string => {
      const next = commands.shift();
      if (next === undefined || !pattern.test(next)) throw new Error(`the quick start's next command is ${JSON.stringify(next)}, expected ${String(pattern)}`);
      return next;
    };

    const serverPods = async (): Promise<KubeObject[]> =>
      (await client.list('Pod', NS, { labelSelector: 'app.kubernetes.io/instance=veil,app.kubernetes.io/component=server' })).items.filter((pod) => (pod.status as Obj | undefined)?.['phase'] === 'Running' && pod.metadata.deletionTimestamp === undefined);
    const tenantStatus = async (): Promise<Obj | undefined> => (await client.get('Tenant', NS, 'acme'))?.status as Obj | undefined;
    const leaseHolder = async (): Promise<string | undefined> => (await client.get<Lease>('Lease', NS, 'veil-operator'))?.spec?.holderIdentity ?? undefined;

    afterAll(async () => {
      await Promise.all(operators.map((operator) => operator.stop()));
      await Promise.all(kubelets.map((kubelet) => kubelet.stop()));
      await redis?.stop();
    });

    it('1. builds the images (the images suite does) and would push them (no registry here)', () => {
      expect(skipDocumented(/^make images$/)).toBe('make images');
      expect(skipDocumented(/^for image in veil veil-operator veil-ner; do podman push /)).toContain('podman push ghcr.io/veil-dev/$image:0.1.0');
      for (const name of ['charts', 'crds']) symlinkSync(join(ROOT, name), join(workdir, name));
    });

    it('2. installs the chart into a PodSecurity-restricted namespace; Helm creates the CRDs; every pod is admitted', async () => {
      await runDocumented(/^kubectl create namespace veil$/);
      await runDocumented(/^kubectl label namespace veil pod-security\.kubernetes\.io\/enforce=restricted$/);
      // Storage: no provisioner here, so the claims bind to volumes made for them.
      for (const [name, mode, size] of [['veil-audit', 'ReadWriteMany', '10Gi'], ['veil-redis', 'ReadWriteOnce', '1Gi']] as const) {
        const volume = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: `${name}-${randomBytes(3).toString('hex')}` }, spec: { capacity: { storage: size }, accessModes: [mode], storageClassName: '', claimRef: { namespace: NS, name }, hostPath: { path: `/tmp/${name}`, type: 'DirectoryOrCreate' } } };
        await ok(kubectl(['apply', '-f', '-'], JSON.stringify(volume)));
      }
      await runDocumented(/^helm install veil charts\/veil --namespace veil --wait/, HELM_TEST_FLAGS);
      for (const name of CRD_NAMES) expect(await ok(kubectl(['get', 'crd', name, '-o', 'jsonpath={.status.conditions[?(@.type=="Established")].status}']))).toBe('True');
      // Every Deployment of the chart, and the operator's own NER Deployment, got its pods.
      for (const deployment of ['veil-server', 'veil-operator', 'veil-redis']) {
        const status = (await client.get('Deployment', NS, deployment))?.status as Obj;
        expect(status['readyReplicas'], deployment).toBe(status['replicas']);
      }
      // Enforcement is on: a pod that breaks `restricted` is refused.
      const unconfined = await kubectl(['run', 'breaks-restricted', '-n', NS, '--image=x/y:1', '--restart=Never']);
      expect(unconfined.code).not.toBe(0);
      expect(unconfined.stderr).toMatch(/violates PodSecurity "restricted/);
    }, 600_000);

    it('grants the operator ServiceAccount exactly what it needs (kubectl auth can-i)', async () => {
      const as = ['--as', `system:serviceaccount:${NS}:veil-operator`];
      const can = async (args: string[], namespace = NS): Promise<boolean> => (await kubectl(['auth', 'can-i', ...args, '-n', namespace, ...as])).stdout.trim() === 'yes';
      const expectations: [string[], boolean, string?][] = [
        [['get', 'secret/veil-keyrings'], true],
        [['list', 'secret/veil-api-keys'], true],
        [['update', 'secret/veil-keyrings'], true],
        [['create', 'secrets'], true],
        [['get', 'secret/veil-session'], false],
        [['get', 'secret/veil-redis'], false],
        [['list', 'secrets'], false],
        [['watch', 'secrets'], false],
        [['get', 'secrets'], true, KEYS_NS],
        [['list', 'secrets'], true, KEYS_NS],
        [['create', 'secrets'], false, KEYS_NS],
        [['list', 'secrets'], false, 'default'],
        [['get', 'tenants'], true],
        [['update', 'tenants'], false],
        [['patch', 'tenants', '--subresource=status'], true],
        [['patch', 'tenants'], false],
        [['update', 'configmap/veil-policies'], true],
        [['update', 'configmap/veil-server-config'], false],
        [['update', 'deployment/veil-ner'], true],
        [['update', 'deployment/veil-server'], false],
        [['delete', 'lease/veil-operator'], true],
        [['delete', 'lease/other'], false],
        [['list', 'pods'], true],
        [['delete', 'pods'], false],
        [['create', 'clusterroles'], false],
        [['list', 'namespaces'], false],
      ];
      const wrong: string[] = [];
      for (const [args, expected, namespace] of expectations) {
        if ((await can(args, namespace)) !== expected) wrong.push(`${args.join(' ')} -n ${namespace ?? NS}: expected ${expected ? 'yes' : 'no'}`);
      }
      expect(wrong).toEqual([]);
    }, 600_000);

    it('runs two operators as that ServiceAccount: one leads, and hands over when it stops', async () => {
      const password = Buffer.from((await client.get<Secret>('Secret', NS, 'veil-redis'))!.data!['redis-password']!, 'base64').toString();
      redis = await startLocalRedis(['--requirepass', password]);
      const kubeconfig = join(workdir, 'operator.kubeconfig');
      writeFileSync(kubeconfig, await serviceAccountKubeconfig(tools, NS, 'veil-operator'), { mode: 0o600 });
      const apiKeyFile = join(workdir, 'operator-api-key');
      writeFileSync(apiKeyFile, Buffer.from((await client.get<Secret>('Secret', NS, 'veil-operator-api-key'))!.data!['api-key']!, 'base64'), { mode: 0o600 });
      const pods = (await client.list('Pod', NS, { labelSelector: 'app.kubernetes.io/instance=veil,app.kubernetes.io/component=operator' })).items;
      expect(pods.length).toBe(2);
      const start = async (pod: KubeObject): Promise<RunningProcess> => {
        const container = ((pod['spec'] as Obj)['containers'] as Obj[])[0]!;
        const env: Record<string, string> = {};
        for (const variable of container['env'] as Obj[]) {
          env[String(variable['name'])] = variable['valueFrom']?.['fieldRef'] !== undefined ? (variable['valueFrom']['fieldRef']['fieldPath'] === 'metadata.name' ? pod.metadata.name : NS) : String(variable['value']);
        }
        return startOperatorProcess({ ...env, KUBECONFIG: kubeconfig, VEIL_OPERATOR_SERVER_API_KEY_FILE: apiKeyFile, VEIL_OPERATOR_HEALTH_PORT: String(await freePort()) });
      };
      operators.push(await start(pods[0]!), await start(pods[1]!));
      const first = await waitFor(leaseHolder, 60_000, 'a leader');
      expect(pods.map((pod) => pod.metadata.name)).toContain(first);
      // The leader (as the other one would) creates the NER sidecar, admitted under restricted.
      await waitFor(async () => ((await client.get('Deployment', NS, 'veil-ner'))?.status as Obj | undefined)?.['readyReplicas'] === 1, 60_000, 'the NER Deployment');
      const leaderIndex = pods.findIndex((pod) => pod.metadata.name === first);
      await operators[leaderIndex]!.stop();
      const second = await waitFor(async () => {
        const holder = await leaseHolder();
        return holder !== undefined && holder !== '' && holder !== first ? holder : undefined;
      }, 60_000, 'the other operator to take over');
      expect(second).toBe(pods[1 - leaderIndex]!.metadata.name);
      operators[leaderIndex] = await start(pods[leaderIndex]!);
      for (const operator of operators) expect(operator.logs.join('\n')).not.toMatch(/"level":"(warn|error)".*(forbidden|403)/);
    }, 600_000);

    it('3. publishes the documented policy and creates the tenant key ring', async () => {
      writeFileSync(join(workdir, 'policy.yaml'), docsBlock('TokenizationPolicy'));
      writeFileSync(join(workdir, 'tenant.yaml'), docsBlock('Tenant'));
      await runDocumented(/^kubectl apply -f policy\.yaml -f tenant\.yaml$/);
      await runDocumented(/^kubectl -n veil wait --for=condition=Published tokenizationpolicy\/support-desk/);
      await runDocumented(/^kubectl -n veil wait --for=condition=Ready tenant\/acme/);
      const ring = await client.get<Secret>('Secret', NS, 'veil-keyrings');
      const parsed = parseKeyRingFile(Buffer.from(ring!.data!['acme.json']!, 'base64').toString(), 'acme.json');
      expect(parsed.ok && parsed.value.current_kid).toBe((await tenantStatus())?.['currentKid']);
      // Never owned: the key ring outlives the operator's Deployment.
      expect(ring!.metadata.ownerReferences).toBeUndefined();
      // Server-side apply under the operator's field manager.
      expect(JSON.stringify((ring!.metadata as Obj)['managedFields'])).toContain('"manager":"veil-operator","operation":"Apply"');
      // The server pods: real `veil serve` processes on their Pod IPs (the kubelet stand-in).
      for (const pod of await serverPods()) {
        const kubelet = new PodKubelet({ client, pod, services: { 'veil-redis:6379': `127.0.0.1:${redis!.port}` }, overrides: { VEIL_DETECTOR__MODE: 'builtin' } });
        kubelets.push(kubelet);
        await kubelet.start();
      }
      expect(kubelets.length).toBe(2);
    }, 600_000);

    it('keeps what it owns against a competing field manager: its files come back, strays go, foreign labels stay', async () => {
      const before = (await client.get('ConfigMap', NS, 'veil-policies'))!;
      const rival = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'veil-policies', namespace: NS, labels: { 'example.com/owner': 'rival' } }, data: { 'support-desk.yaml': 'name: hijacked\n', 'stray.yaml': 'name: stray\n' } };
      await ok(kubectl(['apply', '--server-side', '--field-manager=rival', '--force-conflicts', '-f', '-'], JSON.stringify(rival)));
      const repaired = await waitFor(async () => {
        const current = await client.get('ConfigMap', NS, 'veil-policies');
        const data = current?.['data'] as Record<string, string> | undefined;
        return data !== undefined && data['support-desk.yaml'] === (before['data'] as Record<string, string>)['support-desk.yaml'] && !('stray.yaml' in data) ? current : undefined;
      }, 60_000, 'the operator to repair its policy directory');
      expect(repaired.metadata.labels?.['example.com/owner']).toBe('rival');
      const managers = ((repaired.metadata as Obj)['managedFields'] as Obj[]).map((entry) => `${String(entry['manager'])}/${String(entry['operation'])}`);
      expect(managers).toEqual(expect.arrayContaining(['veil-operator/Apply', 'rival/Apply']));
    }, 600_000);

    it('4. transforms from a client (the server Pod IP stands in for the Service) and rehydrates on the other replica', async () => {
      skipDocumented(/^kubectl -n veil run veil-client /);
      const headers = { 'x-api-key': TENANT_KEY };
      const [a, b] = kubelets.map((kubelet) => kubelet.server!);
      const transformed = await postJson(`${a!.url}/v1/transform`, { input: 'Mail jane.doe@example.com about card 4111 1111 1111 1111', policy: 'support-desk' }, headers);
      expect(transformed.status, transformed.text).toBe(200);
      expect(transformed.body.safe_text).not.toContain('jane.doe@example.com');
      const restored = await postJson(`${b!.url}/v1/rehydrate`, { output: transformed.body.safe_text, session_state: transformed.body.session_state }, headers);
      expect(restored.status, restored.text).toBe(200);
      expect(JSON.stringify(restored.body)).toContain('jane.doe@example.com');
    }, 600_000);

    it('5. rotates the key ring in three phases, gated on what every server replica reports, under traffic', async () => {
      const before = await tenantStatus();
      const load = tenantTraffic(kubelets.map((kubelet) => kubelet.server!), TENANT_KEY);
      await runDocumented(/^kubectl -n veil patch tenant acme --type merge/);
      skipDocumented(/^kubectl -n veil get tenant acme -w$/); // watching: the wait below reads the same status
      const done = await waitFor(async () => {
        const status = await tenantStatus();
        return status?.['rotation']?.['phase'] === 'Idle' && status['currentKid'] !== before?.['currentKid'] && status['keys']?.length === 1 ? status : undefined;
      }, 180_000, 'the rotation to complete');
      const traffic = await load.stop();
      expect(traffic.failed).toEqual([]);
      expect(traffic.sent).toBeGreaterThan(0);
      const reasons = (await client.list('Event', NS)).items.filter((event) => (event['involvedObject'] as Obj)['name'] === 'acme').map((event) => String(event['reason']));
      expect(reasons).toEqual(expect.arrayContaining(['RotationStarted', 'RotationSwitching', 'RotationRetiring', 'RotationCompleted']));
      // Every server comes to report the ring the operator wrote last (its fingerprint is the
      // generation; the final write, dropping the old key, is not gated, so it arrives after Idle).
      const ring = parseKeyRingFile(Buffer.from((await client.get<Secret>('Secret', NS, 'veil-keyrings'))!.data!['acme.json']!, 'base64').toString(), 'acme.json');
      expect(ring.ok && ring.value.current_kid).toBe(done['currentKid']);
      const adminKey = readFileSync(join(workdir, 'operator-api-key'), 'utf8');
      const reported = async (url: string): Promise<unknown> => {
        const report = (await (await fetch(`${url}/v1/diagnostics`, { headers: { 'x-api-key': adminKey } })).json()) as Obj;
        return (report['key_rings'] as Obj[]).find((entry) => entry['tenant'] === 'acme')?.['generation'];
      };
      for (const kubelet of kubelets) {
        await waitFor(async () => (await reported(kubelet.server!.url)) === (ring.ok ? ringFingerprint(ring.value) : 'unreadable'), 60_000, `${kubelet.podIP} to load the final ring`);
      }
    }, 600_000);

    it('6. upgrades with changed values (CRDs first) and rolls back; generated secrets survive both', async () => {
      const session = (await client.get<Secret>('Secret', NS, 'veil-session'))!.data;
      await runDocumented(/^kubectl apply --server-side -f charts\/veil\/crds\/$/);
      await runDocumented(/^helm upgrade veil charts\/veil --namespace veil --reuse-values --set server\.replicas=3/);
      expect(((await client.get('Deployment', NS, 'veil-server'))?.spec as Obj)['replicas']).toBe(3);
      await runDocumented(/^helm rollback veil 1 --namespace veil/);
      expect(((await client.get('Deployment', NS, 'veil-server'))?.spec as Obj)['replicas']).toBe(2);
      expect((await client.get<Secret>('Secret', NS, 'veil-session'))!.data).toEqual(session);
      const history = JSON.parse(await ok(run(tools.helm, ['history', 'veil', '-n', NS, '-o', 'json'], { env: tools.env }))) as Obj[];
      expect(history.map((entry) => entry['status'])).toEqual(['superseded', 'superseded', 'deployed']);
    }, 600_000);

    it('7. uninstalls: keeps key rings, secrets, claims and CRDs; the garbage collector removes what the operator owned; the Lease goes with the operators', async () => {
      // The operators' pods go with the release; their processes here stop as the pods would.
      await Promise.all(operators.map((operator) => operator.stop()));
      expect(await client.get('Lease', NS, 'veil-operator')).toBeUndefined();
      await runDocumented(/^helm uninstall veil --namespace veil --wait$/);
      const listing = await runDocumented(/^kubectl -n veil get secrets,pvc$/);
      for (const kept of ['secret/veil-keyrings', 'secret/veil-session', 'secret/veil-audit', 'secret/veil-redis', 'persistentvolumeclaim/veil-redis', 'persistentvolumeclaim/veil-audit']) expect(listing).toContain(kept);
      expect(await client.get('Tenant', NS, 'acme')).toBeDefined();
      expect(await client.get('TokenizationPolicy', NS, 'support-desk')).toBeDefined();
      expect((await kubectl(['get', 'namespace', KEYS_NS])).code).toBe(0);
      for (const name of CRD_NAMES) expect((await kubectl(['get', 'crd', name])).code).toBe(0);
      // Owned by the operator's Deployment: collected once it is gone.
      await waitFor(async () => {
        const gone = await Promise.all([
          client.get('ConfigMap', NS, 'veil-policies'),
          client.get('ConfigMap', NS, 'veil-tenants'),
          client.get('Secret', NS, 'veil-api-keys'),
          client.get('Deployment', NS, 'veil-ner'),
          client.get('Service', NS, 'veil-ner'),
        ]);
        return gone.every((object) => object === undefined);
      }, 120_000, 'garbage collection of the operator-owned objects');
      expect(commands).toEqual([]);
      expect(ran.length).toBeGreaterThanOrEqual(10);
    }, 600_000);
  });

  kubeClientConformance('real API server', async () => {
    const namespace = `veil-conformance-${randomBytes(3).toString('hex')}`;
    await run(tools.kubectl, ['create', 'namespace', namespace], { env: tools.env });
    const crdsInstalled = await client.list('Tenant', namespace).then(
      () => true,
      (error: unknown) => {
        if (isNotFound(error)) return false;
        throw error;
      },
    );
    return { client, namespace, crdsInstalled };
  });
}
