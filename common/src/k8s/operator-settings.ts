// The contract between the Helm chart and the operator process: the environment variables the
// chart sets on the operator Deployment (charts/veil/templates/operator-deployment.yaml) and a
// pure parser. Kept here, beside the CRDs, so the chart test and the operator read one list.

/** Environment variable names, each with what it configures. */
export const OPERATOR_ENV = {
  /** Namespace whose TokenizationPolicies and Tenants the operator reconciles. */
  namespace: 'VEIL_OPERATOR_NAMESPACE',
  /** ConfigMap the policy directory is rendered into (mounted by the server as policy.directory). */
  policyConfigMap: 'VEIL_OPERATOR_POLICY_CONFIGMAP',
  /** Secret holding every tenant's key-ring file. */
  keyRingSecret: 'VEIL_OPERATOR_KEYRING_SECRET',
  /** Secret holding every tenant's API-key file (digests only). */
  apiKeysSecret: 'VEIL_OPERATOR_API_KEYS_SECRET',
  /**
   * Namespace of the Secrets that Tenants' spec.apiKeys[].secretRef name: the only namespace
   * where the operator reads arbitrary Secrets (default `<namespace>-tenant-keys`).
   */
  tenantKeysNamespace: 'VEIL_OPERATOR_TENANT_KEYS_NAMESPACE',
  /** ConfigMap holding every tenant's settings file (rate limit, allowed policies). */
  tenantsConfigMap: 'VEIL_OPERATOR_TENANTS_CONFIGMAP',
  /** Label selector of the server pods whose /v1/diagnostics gate rotation phases. */
  serverSelector: 'VEIL_OPERATOR_SERVER_SELECTOR',
  /** Container port of the server pods. */
  serverPort: 'VEIL_OPERATOR_SERVER_PORT',
  /**
   * File holding the API key (scope admin) the operator sends to /v1/diagnostics; a mounted
   * Secret, re-read per survey so the key can rotate. Unset: no key is sent.
   */
  serverApiKeyFile: 'VEIL_OPERATOR_SERVER_API_KEY_FILE',
  /** Session TTL of the servers, in seconds: how long Retiring keeps the old key. */
  sessionTtlSeconds: 'VEIL_OPERATOR_SESSION_TTL_SECONDS',
  /** Name, image and replicas of the NER sidecar Deployment/Service the operator manages ('' image: none). */
  nerName: 'VEIL_OPERATOR_NER_NAME',
  nerImage: 'VEIL_OPERATOR_NER_IMAGE',
  nerReplicas: 'VEIL_OPERATOR_NER_REPLICAS',
  /** Port the NER sidecar listens on and its Service exposes. */
  nerPort: 'VEIL_OPERATOR_NER_PORT',
  /**
   * Secret (key `api-key`) with the shared key the sidecar expects in X-Detector-API-Key; the
   * operator mounts it into the sidecar as VEIL_NER_API_KEY_FILE. Unset: no key.
   */
  nerApiKeySecret: 'VEIL_OPERATOR_NER_API_KEY_SECRET',
  /** Lease used for leader election. */
  leaseName: 'VEIL_OPERATOR_LEASE_NAME',
  /** Port of the operator's /healthz and /metrics. */
  healthPort: 'VEIL_OPERATOR_HEALTH_PORT',
} as const;

export interface OperatorSettings {
  readonly namespace: string;
  readonly policyConfigMap: string;
  readonly keyRingSecret: string;
  readonly apiKeysSecret: string;
  readonly tenantKeysNamespace: string;
  readonly tenantsConfigMap: string;
  readonly serverSelector: string;
  readonly serverPort: number;
  readonly serverApiKeyFile?: string;
  readonly sessionTtlSeconds: number;
  readonly nerName: string;
  /** Undefined: the operator manages no NER sidecar. */
  readonly nerImage?: string;
  readonly nerReplicas: number;
  readonly nerPort: number;
  readonly nerApiKeySecret?: string;
  readonly leaseName: string;
  readonly healthPort: number;
}

const RESOURCE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The tenant-keys namespace: as set, else `<namespace>-tenant-keys` (nothing to derive from a bad namespace). */
function tenantKeysNamespace(value: string | undefined, namespace: string, problems: string[]): string {
  const chosen = value !== undefined && value !== '' ? value : RESOURCE_NAME.test(namespace) ? `${namespace}-tenant-keys`.slice(0, 63).replace(/-+$/, '') : '';
  if (chosen !== '' && !RESOURCE_NAME.test(chosen)) problems.push(`${OPERATOR_ENV.tenantKeysNamespace}: must match ${String(RESOURCE_NAME)}`);
  return chosen;
}

/**
 * Read the settings from an environment. Every problem is listed (variable names only; these
 * values are not secret, but the habit holds). Defaults match the chart's defaults for release
 * name `veil`.
 */
export function parseOperatorSettings(env: Readonly<Record<string, string | undefined>>): { settings?: OperatorSettings; problems: string[] } {
  const problems: string[] = [];
  const text = (key: keyof typeof OPERATOR_ENV, fallback: string | undefined, pattern?: RegExp): string => {
    const value = env[OPERATOR_ENV[key]] ?? fallback;
    if (value === undefined || value === '') {
      problems.push(`${OPERATOR_ENV[key]}: is required`);
      return '';
    }
    if (pattern !== undefined && !pattern.test(value)) problems.push(`${OPERATOR_ENV[key]}: must match ${String(pattern)}`);
    return value;
  };
  const integer = (key: keyof typeof OPERATOR_ENV, fallback: number, min: number, max: number): number => {
    const raw = env[OPERATOR_ENV[key]];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!/^[0-9]+$/.test(raw) || value < min || value > max) problems.push(`${OPERATOR_ENV[key]}: must be an integer from ${min} to ${max}`);
    return value;
  };
  const nerImage = env[OPERATOR_ENV.nerImage];
  const apiKeyFile = env[OPERATOR_ENV.serverApiKeyFile];
  const nerApiKeySecret = env[OPERATOR_ENV.nerApiKeySecret];
  if (nerApiKeySecret !== undefined && nerApiKeySecret !== '' && !RESOURCE_NAME.test(nerApiKeySecret)) problems.push(`${OPERATOR_ENV.nerApiKeySecret}: must match ${String(RESOURCE_NAME)}`);
  if (apiKeyFile !== undefined && apiKeyFile !== '' && !apiKeyFile.startsWith('/')) problems.push(`${OPERATOR_ENV.serverApiKeyFile}: must be an absolute path`);
  const namespace = text('namespace', undefined, RESOURCE_NAME);
  const settings: OperatorSettings = {
    namespace,
    policyConfigMap: text('policyConfigMap', 'veil-policies', RESOURCE_NAME),
    keyRingSecret: text('keyRingSecret', 'veil-keyrings', RESOURCE_NAME),
    apiKeysSecret: text('apiKeysSecret', 'veil-api-keys', RESOURCE_NAME),
    tenantKeysNamespace: tenantKeysNamespace(env[OPERATOR_ENV.tenantKeysNamespace], namespace, problems),
    tenantsConfigMap: text('tenantsConfigMap', 'veil-tenants', RESOURCE_NAME),
    serverSelector: text('serverSelector', 'app.kubernetes.io/name=veil,app.kubernetes.io/component=server'),
    serverPort: integer('serverPort', 3000, 1, 65535),
    ...(apiKeyFile !== undefined && apiKeyFile !== '' ? { serverApiKeyFile: apiKeyFile } : {}),
    sessionTtlSeconds: integer('sessionTtlSeconds', 3600, 1, 2_592_000),
    nerName: text('nerName', 'veil-ner', RESOURCE_NAME),
    ...(nerImage !== undefined && nerImage !== '' ? { nerImage } : {}),
    nerReplicas: integer('nerReplicas', 1, 0, 100),
    nerPort: integer('nerPort', 8001, 1, 65535),
    ...(nerApiKeySecret !== undefined && nerApiKeySecret !== '' ? { nerApiKeySecret } : {}),
    leaseName: text('leaseName', 'veil-operator', RESOURCE_NAME),
    healthPort: integer('healthPort', 8080, 1, 65535),
  };
  return problems.length > 0 ? { problems } : { settings, problems };
}
