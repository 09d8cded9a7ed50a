// Support for the chart tests: find helm (scripts/helm.sh), render the chart, and check rendered
// built-in objects offline with a small structural validator (known apiVersion/kind pairs and the
// fields the API server requires for the kinds the chart renders), since no cluster and no
// OpenAPI download is available here. Our own CRDs' objects are checked with validateAgainstCrd.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseYamlDocuments } from '@veil/common';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const chartDir = fileURLToPath(new URL('../veil/', import.meta.url));

export type Obj = Record<string, any>;

/** helm's path, or why it cannot be had here (scripts/helm.sh exit status 2 and its message). */
export function locateHelm(): { helm?: string; reason?: string } {
  const result = spawnSync('bash', [`${repoRoot}/scripts/helm.sh`], { encoding: 'utf8', timeout: 600_000 });
  if (result.status === 0) return { helm: result.stdout.trim() };
  return { reason: (result.stderr || result.error?.message || `exit ${String(result.status)}`).trim() };
}

export interface HelmRun {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

export function runHelm(helm: string, args: readonly string[]): HelmRun {
  const result = spawnSync(helm, args, { encoding: 'utf8', timeout: 120_000, env: { ...process.env, HELM_CACHE_HOME: '/tmp/veil-helm-cache', HELM_CONFIG_HOME: '/tmp/veil-helm-config', HELM_DATA_HOME: '/tmp/veil-helm-data' } });
  return { ok: result.status === 0, stdout: result.stdout, stderr: result.stderr };
}

/** `helm template` output with --set-json style overrides; throws with helm's stderr on failure. */
export function renderText(helm: string, sets: Readonly<Record<string, unknown>> = {}, extra: readonly string[] = []): string {
  const args = ['template', 'veil', chartDir, '--namespace', 'veil', ...extra];
  for (const [key, value] of Object.entries(sets)) args.push('--set-json', `${key}=${JSON.stringify(value)}`);
  const run = runHelm(helm, args);
  if (!run.ok) throw new Error(`helm template failed: ${run.stderr}`);
  return run.stdout;
}

/** The rendered objects, read as kubectl and the API server read them (YAML 1.1). */
export function render(helm: string, sets: Readonly<Record<string, unknown>> = {}, extra: readonly string[] = []): Obj[] {
  return parseYamlDocuments(renderText(helm, sets, extra), '1.1') as Obj[];
}

export function find(objects: readonly Obj[], kind: string, name: string): Obj {
  const found = objects.find((object) => object['kind'] === kind && object['metadata']?.['name'] === name);
  if (found === undefined) throw new Error(`${kind}/${name} not rendered`);
  return found;
}

// ---------------------------------------------------------------------------------------------
// Offline structural validation of built-in kinds

const KNOWN_KINDS = new Set([
  'v1/ConfigMap',
  'v1/Secret',
  'v1/Service',
  'v1/ServiceAccount',
  'v1/PersistentVolumeClaim',
  'v1/Namespace',
  'apps/v1/Deployment',
  'policy/v1/PodDisruptionBudget',
  'rbac.authorization.k8s.io/v1/Role',
  'rbac.authorization.k8s.io/v1/RoleBinding',
  'networking.k8s.io/v1/NetworkPolicy',
  'apiextensions.k8s.io/v1/CustomResourceDefinition',
]);
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QUALIFIED_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const RBAC_VERBS = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection']);
const DATA_KEY = /^[-._a-zA-Z0-9]+$/;

function checkLabels(labels: unknown, where: string, problems: string[]): void {
  if (labels === undefined) return;
  for (const [key, value] of Object.entries(labels as Record<string, unknown>)) {
    if (!QUALIFIED_NAME.test(key) || key.split('/').at(-1)!.length > 63) problems.push(`${where}: label key ${key} is invalid`);
    if (typeof value !== 'string' || value.length > 63 || !LABEL_VALUE.test(value)) problems.push(`${where}: label ${key} value is invalid`);
  }
}

function matches(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (selector === undefined || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

function checkPodSpec(spec: Obj | undefined, where: string, problems: string[]): void {
  if (spec === undefined) {
    problems.push(`${where}: pod spec missing`);
    return;
  }
  const containers = spec['containers'] as Obj[] | undefined;
  if (!Array.isArray(containers) || containers.length === 0) problems.push(`${where}: containers must be non-empty`);
  const volumes = new Map<string, Obj>(((spec['volumes'] ?? []) as Obj[]).map((volume) => [volume['name'], volume]));
  for (const [name, volume] of volumes) {
    if (!DNS_LABEL.test(name)) problems.push(`${where}: volume name ${name} is invalid`);
    const sources = Object.keys(volume).filter((key) => key !== 'name');
    if (sources.length !== 1) problems.push(`${where}: volume ${name} needs exactly one source`);
  }
  for (const container of containers ?? []) {
    const at = `${where}.containers[${String(container['name'])}]`;
    if (typeof container['name'] !== 'string' || !DNS_LABEL.test(container['name'])) problems.push(`${at}: name is invalid`);
    if (typeof container['image'] !== 'string' || container['image'] === '') problems.push(`${at}: image is required`);
    const ports = new Set<string | number>();
    for (const port of (container['ports'] ?? []) as Obj[]) {
      if (!Number.isInteger(port['containerPort']) || port['containerPort'] < 1 || port['containerPort'] > 65535) problems.push(`${at}: containerPort is invalid`);
      if (port['name'] !== undefined && (String(port['name']).length > 15 || !DNS_LABEL.test(String(port['name'])))) problems.push(`${at}: port name ${String(port['name'])} is invalid`);
      ports.add(port['containerPort']);
      if (port['name'] !== undefined) ports.add(port['name']);
    }
    for (const probeName of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      const probe = container[probeName] as Obj | undefined;
      if (probe === undefined) continue;
      const handlers = ['httpGet', 'tcpSocket', 'exec', 'grpc'].filter((key) => probe[key] !== undefined);
      if (handlers.length !== 1) problems.push(`${at}.${probeName}: needs exactly one handler`);
      const port = probe['httpGet']?.['port'] ?? probe['tcpSocket']?.['port'];
      if (port !== undefined && !ports.has(port)) problems.push(`${at}.${probeName}: port ${String(port)} is not a container port`);
    }
    const names = new Set<string>();
    for (const variable of (container['env'] ?? []) as Obj[]) {
      if (typeof variable['name'] !== 'string' || !/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(variable['name'])) problems.push(`${at}: env name is invalid`);
      if (names.has(variable['name'])) problems.push(`${at}: env ${String(variable['name'])} is duplicated`);
      names.add(variable['name']);
      const hasValue = variable['value'] !== undefined;
      const from = variable['valueFrom'] as Obj | undefined;
      if (hasValue && from !== undefined) problems.push(`${at}: env ${String(variable['name'])} has value and valueFrom`);
      if (hasValue && typeof variable['value'] !== 'string') problems.push(`${at}: env ${String(variable['name'])} value must be a string`);
      if (from !== undefined) {
        const ref = from['secretKeyRef'] ?? from['configMapKeyRef'];
        if (ref !== undefined && (typeof ref['name'] !== 'string' || typeof ref['key'] !== 'string')) problems.push(`${at}: env ${String(variable['name'])} reference needs name and key`);
        if (ref === undefined && from['fieldRef'] === undefined && from['resourceFieldRef'] === undefined) problems.push(`${at}: env ${String(variable['name'])} valueFrom is empty`);
      }
    }
    for (const mount of (container['volumeMounts'] ?? []) as Obj[]) {
      if (!volumes.has(mount['name'])) problems.push(`${at}: volumeMount ${String(mount['name'])} names no volume`);
      if (typeof mount['mountPath'] !== 'string' || !mount['mountPath'].startsWith('/')) problems.push(`${at}: mountPath must be absolute`);
    }
  }
}

/** Problems the API server would report for the rendered built-in objects (a practical subset). */
export function builtinProblems(objects: readonly Obj[]): string[] {
  const problems: string[] = [];
  const deployments = objects.filter((object) => object['kind'] === 'Deployment');
  const podLabels = deployments.map((deployment) => deployment['spec']?.['template']?.['metadata']?.['labels'] as Record<string, string> | undefined);
  const seen = new Set<string>();
  for (const object of objects) {
    const key = `${String(object['apiVersion'])}/${String(object['kind'])}`;
    const name = object['metadata']?.['name'];
    const where = `${String(object['kind'])}/${String(name)}`;
    if (!KNOWN_KINDS.has(key)) problems.push(`${where}: unknown apiVersion/kind ${key}`);
    if (typeof name !== 'string' || name.length > 253 || !DNS_SUBDOMAIN.test(name)) problems.push(`${where}: metadata.name is invalid`);
    if (['Service', 'Deployment'].includes(String(object['kind'])) && typeof name === 'string' && (name.length > 63 || !DNS_LABEL.test(name))) problems.push(`${where}: name must be a DNS label`);
    if (seen.has(`${key}/${String(name)}`)) problems.push(`${where}: rendered twice`);
    seen.add(`${key}/${String(name)}`);
    checkLabels(object['metadata']?.['labels'], where, problems);
    const spec = object['spec'] as Obj | undefined;
    switch (object['kind']) {
      case 'Deployment': {
        const selector = spec?.['selector']?.['matchLabels'] as Record<string, string> | undefined;
        const labels = spec?.['template']?.['metadata']?.['labels'] as Record<string, string> | undefined;
        if (!matches(selector, labels)) problems.push(`${where}: selector does not match the pod template labels`);
        checkLabels(labels, `${where}.template`, problems);
        if (!Number.isInteger(spec?.['replicas']) || spec?.['replicas'] < 0) problems.push(`${where}: replicas must be a non-negative integer`);
        checkPodSpec(spec?.['template']?.['spec'], where, problems);
        break;
      }
      case 'Service': {
        const selector = spec?.['selector'] as Record<string, string> | undefined;
        if (!podLabels.some((labels) => matches(selector, labels))) problems.push(`${where}: selector matches no rendered pod template`);
        for (const port of (spec?.['ports'] ?? []) as Obj[]) if (!Number.isInteger(port['port'])) problems.push(`${where}: port must be an integer`);
        if (((spec?.['ports'] ?? []) as Obj[]).length === 0) problems.push(`${where}: ports must be non-empty`);
        break;
      }
      case 'PodDisruptionBudget':
      case 'NetworkPolicy': {
        const selector = (object['kind'] === 'PodDisruptionBudget' ? spec?.['selector']?.['matchLabels'] : spec?.['podSelector']?.['matchLabels']) as Record<string, string> | undefined;
        // The NER pods are created by the operator, so their policy may select nothing rendered.
        if (!String(name).endsWith('-ner') && !podLabels.some((labels) => matches(selector, labels))) problems.push(`${where}: selector matches no rendered pod template`);
        break;
      }
      case 'Role':
        for (const [index, rule] of ((object['rules'] ?? []) as Obj[]).entries()) {
          for (const field of ['apiGroups', 'resources', 'verbs']) if (!Array.isArray(rule[field]) || rule[field].length === 0) problems.push(`${where}.rules[${index}]: ${field} must be non-empty`);
          for (const verb of (rule['verbs'] ?? []) as string[]) if (!RBAC_VERBS.has(verb)) problems.push(`${where}.rules[${index}]: verb ${verb} is not a plain resource verb`);
        }
        break;
      case 'RoleBinding': {
        const roleRef = object['roleRef'] as Obj | undefined;
        if (roleRef?.['kind'] !== 'Role' || !objects.some((other) => other['kind'] === 'Role' && other['metadata']?.['name'] === roleRef['name'])) problems.push(`${where}: roleRef names no rendered Role`);
        for (const subject of (object['subjects'] ?? []) as Obj[]) {
          if (subject['kind'] === 'ServiceAccount' && !objects.some((other) => other['kind'] === 'ServiceAccount' && other['metadata']?.['name'] === subject['name'])) problems.push(`${where}: subject names no rendered ServiceAccount`);
        }
        break;
      }
      case 'ConfigMap':
        for (const [dataKey, value] of Object.entries((object['data'] ?? {}) as Obj)) if (!DATA_KEY.test(dataKey) || typeof value !== 'string') problems.push(`${where}: data ${dataKey} is invalid`);
        break;
      case 'Secret':
        for (const [dataKey, value] of Object.entries((object['data'] ?? {}) as Obj)) {
          if (!DATA_KEY.test(dataKey) || typeof value !== 'string' || Buffer.from(value, 'base64').toString('base64') !== value) problems.push(`${where}: data ${dataKey} must be base64`);
        }
        break;
      case 'PersistentVolumeClaim':
        if (!Array.isArray(spec?.['accessModes']) || spec['accessModes'].length === 0 || spec?.['resources']?.['requests']?.['storage'] === undefined) problems.push(`${where}: accessModes and storage are required`);
        break;
      default:
        break;
    }
  }
  return problems;
}
