// The two CustomResourceDefinitions (apiextensions.k8s.io/v1), built as data from the policy
// schema and the contract types, and rendered to the YAML committed under crds/ (and copied
// into charts/veil/crds/). `npm run crds` writes the files; crds.test.ts regenerates them in
// memory and fails on any difference.
//
// Every string has a maxLength or a length-bounding pattern, every list a maxItems and every map
// a maxProperties: the API server needs these bounds to estimate CEL cost, and they cap what
// one resource can make the operator and the servers do.
import { stringify } from 'yaml';
import { POLICY_SCHEMA } from '../policy/schema.js';
import { fieldsEqualRule, immutableRule, minDurationRule } from './cel.js';
import { MIN_ROTATION_PERIOD_SECONDS, ROTATION_PERIOD_PATTERN } from './duration.js';
import { toStructuralSchema, type Schema } from './structural.js';
import {
  API_KEY_SCOPES,
  CRD_NAMES,
  KEY_PHASES,
  KID_PATTERN,
  ROTATION_PHASES,
  ROTATION_REASONS,
  TENANT_ID_PATTERN,
  VEIL_API_GROUP,
  VEIL_API_VERSION,
  type VeilKind,
} from './types.js';

/** Where `npm run crds` writes each CRD, relative to the repository root. */
export const CRD_FILES: Readonly<Record<VeilKind, readonly string[]>> = {
  TokenizationPolicy: [`crds/${CRD_NAMES.TokenizationPolicy.plural}.${VEIL_API_GROUP}.yaml`, `charts/veil/crds/${CRD_NAMES.TokenizationPolicy.plural}.${VEIL_API_GROUP}.yaml`],
  Tenant: [`crds/${CRD_NAMES.Tenant.plural}.${VEIL_API_GROUP}.yaml`, `charts/veil/crds/${CRD_NAMES.Tenant.plural}.${VEIL_API_GROUP}.yaml`],
};

const DATE_TIME = { type: 'string', format: 'date-time', maxLength: 64 } as const;
const KID = { type: 'string', minLength: 1, maxLength: 64, pattern: KID_PATTERN } as const;
const GENERATION = { type: 'integer', format: 'int64', minimum: 0 } as const;
const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
const POLICY_NAME = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[a-z0-9_-]+$' } as const;
const ATTRIBUTE = { type: 'string', minLength: 1, maxLength: 128 } as const;

/** metav1.Condition with the upstream bounds, as a list keyed by type. */
const CONDITIONS: Schema = {
  description: 'Standard Kubernetes conditions; messages name fields, never values.',
  type: 'array',
  maxItems: 16,
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    properties: {
      type: { type: 'string', maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      observedGeneration: GENERATION,
      lastTransitionTime: DATE_TIME,
      reason: { type: 'string', minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' },
      message: { type: 'string', maxLength: 32768 },
    },
  },
};

/** apiVersion/kind/metadata as controller-gen writes them; metadata itself is validated by the API server. */
function root(spec: Schema, status: Schema, description: string, extra: Schema = {}): Schema {
  return {
    description,
    type: 'object',
    required: ['spec'],
    properties: {
      apiVersion: { type: 'string', maxLength: 253 },
      kind: { type: 'string', maxLength: 63 },
      metadata: { type: 'object' },
      spec,
      status,
    },
    ...extra,
  };
}

function crd(kind: VeilKind, schema: Schema, printerColumns: readonly Schema[]): Schema {
  const names = CRD_NAMES[kind];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${names.plural}.${VEIL_API_GROUP}`,
      labels: { 'app.kubernetes.io/name': 'veil', 'app.kubernetes.io/part-of': 'veil' },
    },
    spec: {
      group: VEIL_API_GROUP,
      scope: 'Namespaced',
      names: { kind: names.kind, listKind: names.listKind, plural: names.plural, singular: names.singular, shortNames: [...names.shortNames], categories: ['veil'] },
      versions: [
        {
          name: VEIL_API_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: printerColumns,
          schema: { openAPIV3Schema: schema },
        },
      ],
    },
  };
}

/** The policy file schema as a structural schema: the `spec.policy` of a TokenizationPolicy. */
export const POLICY_CRD_SCHEMA: Schema = toStructuralSchema(POLICY_SCHEMA);

export function tokenizationPolicyCrd(): Schema {
  const spec: Schema = {
    description: 'One policy in the schema of a policy file (policies/schema.json), plus whether it is the default.',
    type: 'object',
    required: ['policy'],
    properties: {
      default: { description: 'Marks the default policy of the namespace (policy.default); at most one policy should set it.', type: 'boolean' },
      policy: POLICY_CRD_SCHEMA,
    },
  };
  const status: Schema = {
    type: 'object',
    properties: {
      observedGeneration: GENERATION,
      policyVersion: { description: 'Content hash of the published policy file.', type: 'string', maxLength: 71, pattern: '^sha256:[0-9a-f]{64}$' },
      conditions: CONDITIONS,
    },
  };
  const schema = root(spec, status, 'A Veil tokenization policy, published by the operator into the policy directory of every server replica.', {
    'x-kubernetes-validations': [fieldsEqualRule('metadata.name', 'spec.policy.name', 'spec.policy.name must equal metadata.name')],
  });
  return crd('TokenizationPolicy', schema, [
    { name: 'Version', type: 'string', jsonPath: '.spec.policy.version' },
    { name: 'Default', type: 'boolean', jsonPath: '.spec.default' },
    { name: 'Valid', type: 'string', jsonPath: '.status.conditions[?(@.type=="Valid")].status' },
    { name: 'Published', type: 'string', jsonPath: '.status.conditions[?(@.type=="Published")].status' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ]);
}

export function tenantCrd(): Schema {
  const spec: Schema = {
    type: 'object',
    required: ['tenantId'],
    properties: {
      tenantId: {
        description: 'The tenant id callers carry (API key tenant_id, JWT tenant claim). Immutable: blobs are sealed under this tenant\'s key ring.',
        type: 'string',
        minLength: 1,
        maxLength: 128,
        pattern: TENANT_ID_PATTERN,
        'x-kubernetes-validations': [immutableRule('tenantId is immutable')],
      },
      apiKeys: {
        description: 'API keys of the tenant; each raw key is read from a Secret of this namespace and published to the servers as a SHA-256 digest only.',
        type: 'array',
        maxItems: 64,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['identity'],
        items: {
          type: 'object',
          required: ['identity', 'secretRef'],
          properties: {
            identity: { description: 'Caller identity reported for this key.', type: 'string', minLength: 1, maxLength: 253 },
            secretRef: {
              type: 'object',
              required: ['name', 'key'],
              properties: {
                name: { type: 'string', minLength: 1, maxLength: 253, pattern: DNS_SUBDOMAIN },
                key: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[-._a-zA-Z0-9]+$' },
              },
            },
            scopes: { description: 'Granted scopes; none means authenticate-only.', type: 'array', maxItems: API_KEY_SCOPES.length, 'x-kubernetes-list-type': 'set', items: { type: 'string', enum: [...API_KEY_SCOPES] } },
            role: ATTRIBUTE,
            purpose: ATTRIBUTE,
            accessLevel: {
              description: 'RAG clearance: the highest rag.classification_levels label this key may read (rag/context, rag/answer). Absent: the lowest level.',
              type: 'string',
              minLength: 1,
              maxLength: 128,
              pattern: '^[a-z0-9_-]+$',
            },
          },
        },
      },
      rateLimit: {
        description: 'Per-tenant rate limit (the server config tenants.<id>.rate_limit); a missing field falls back to the server-wide rate_limit.',
        type: 'object',
        minProperties: 1,
        properties: {
          requestsPerSecond: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1_000_000 },
          burstSize: { type: 'integer', minimum: 1, maximum: 10_000_000 },
        },
      },
      policies: { description: 'Policy names this tenant may use; absent means every policy.', type: 'array', maxItems: 256, 'x-kubernetes-list-type': 'set', items: POLICY_NAME },
      sessionKeys: {
        type: 'object',
        properties: {
          rotationPeriod: {
            description: 'Rotate automatically this long after the current key was created: hours, minutes, seconds (720h, 90m, 1h30m), at least 1h.',
            type: 'string',
            maxLength: 24,
            pattern: ROTATION_PERIOD_PATTERN,
            'x-kubernetes-validations': [minDurationRule(`${MIN_ROTATION_PERIOD_SECONDS / 3600}h`, 'rotationPeriod must be at least 1h')],
          },
          rotateAt: { description: 'Set (e.g. to now) to request one rotation; acted on once, when in the past and newer than status.rotation.lastRotateAt.', ...DATE_TIME },
        },
      },
    },
  };
  const status: Schema = {
    type: 'object',
    properties: {
      observedGeneration: GENERATION,
      currentKid: KID,
      keyRingGeneration: { description: 'Generation of the key-ring file last written for this tenant.', ...GENERATION },
      keys: {
        type: 'array',
        maxItems: 16,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['kid'],
        items: {
          type: 'object',
          required: ['kid', 'created', 'phase'],
          properties: { kid: KID, created: DATE_TIME, phase: { type: 'string', enum: [...KEY_PHASES] } },
        },
      },
      rotation: {
        type: 'object',
        required: ['phase'],
        properties: {
          phase: { type: 'string', enum: [...ROTATION_PHASES] },
          reason: { type: 'string', enum: [...ROTATION_REASONS] },
          newKid: KID,
          oldKid: KID,
          startedAt: DATE_TIME,
          phaseStartedAt: DATE_TIME,
          retireAfter: DATE_TIME,
          targetGeneration: GENERATION,
          lastRotateAt: DATE_TIME,
          lastCompletedAt: DATE_TIME,
        },
      },
      conditions: CONDITIONS,
    },
  };
  const schema = root(spec, status, 'A Veil tenant: its API keys, rate limit, allowed policies and session key ring (rotated by the operator).');
  return crd('Tenant', schema, [
    { name: 'Tenant', type: 'string', jsonPath: '.spec.tenantId' },
    { name: 'Kid', type: 'string', jsonPath: '.status.currentKid' },
    { name: 'Rotation', type: 'string', jsonPath: '.status.rotation.phase' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ]);
}

/** The CRD objects by kind. */
export function veilCrds(): Record<VeilKind, Schema> {
  return { TokenizationPolicy: tokenizationPolicyCrd(), Tenant: tenantCrd() };
}

/** The committed YAML of one CRD (deterministic). */
export function renderCrdYaml(crdObject: Schema): string {
  const header = '# Generated by `npm run crds` (common/src/k8s/crds.ts); do not edit.\n';
  return header + stringify(crdObject, { lineWidth: 0, aliasDuplicateObjects: false });
}

/** Every file `npm run crds` writes, path relative to the repository root -> content. */
export function renderCrdFiles(): Record<string, string> {
  const crds = veilCrds();
  const files: Record<string, string> = {};
  for (const kind of Object.keys(crds) as VeilKind[]) {
    for (const path of CRD_FILES[kind]) files[path] = renderCrdYaml(crds[kind]);
  }
  return files;
}
