// The Kubernetes object shapes and resource kinds the operator touches, and the typed API error.
// Only the fields the operator reads or writes are typed; everything else passes through as-is.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  generateName?: string;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export interface Secret extends KubeObject {
  type?: string;
  /** Values are base64, as the API returns them. */
  data?: Record<string, string>;
}

export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
  };
}

export interface Pod extends KubeObject {
  status?: {
    podIP?: string;
    phase?: string;
    conditions?: { type: string; status: string }[];
  };
}

/** Descriptor of one resource type: enough to build its URL and to find it in discovery. */
export interface ResourceKind {
  readonly kind: string;
  readonly group: string; // '' for the core group
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** Whether writes to the main resource ignore `status` (a status subresource exists). */
  readonly statusSubresource: boolean;
}

export function apiVersionOf(kind: ResourceKind): string {
  return kind.group === '' ? kind.version : `${kind.group}/${kind.version}`;
}

/** The field manager of every write the operator makes (server-side apply ownership, managedFields). */
export const FIELD_MANAGER = 'veil-operator';

/** The URL path of one namespaced object. */
export function objectPath(kind: ResourceKind, namespace: string, name: string): string {
  return `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;
}

/** `/api/v1/namespaces/ns/configmaps` or `/apis/apps/v1/namespaces/ns/deployments` (no namespace: all namespaces). */
export function collectionPath(kind: ResourceKind, namespace?: string): string {
  const base = kind.group === '' ? `/api/${kind.version}` : `/apis/${kind.group}/${kind.version}`;
  return namespace === undefined ? `${base}/${kind.plural}` : `${base}/namespaces/${encodeURIComponent(namespace)}/${kind.plural}`;
}

function core(kind: string, plural: string): ResourceKind {
  return { kind, group: '', version: 'v1', plural, namespaced: true, statusSubresource: false };
}

export const KINDS = {
  ConfigMap: core('ConfigMap', 'configmaps'),
  Secret: core('Secret', 'secrets'),
  Service: { ...core('Service', 'services'), statusSubresource: true },
  Pod: { ...core('Pod', 'pods'), statusSubresource: true },
  Event: core('Event', 'events'),
  Deployment: { kind: 'Deployment', group: 'apps', version: 'v1', plural: 'deployments', namespaced: true, statusSubresource: true },
  Lease: { kind: 'Lease', group: 'coordination.k8s.io', version: 'v1', plural: 'leases', namespaced: true, statusSubresource: false },
  TokenizationPolicy: {
    kind: 'TokenizationPolicy',
    group: 'veil.dev',
    version: 'v1alpha1',
    plural: 'tokenizationpolicies',
    namespaced: true,
    statusSubresource: true,
  },
  Tenant: { kind: 'Tenant', group: 'veil.dev', version: 'v1alpha1', plural: 'tenants', namespaced: true, statusSubresource: true },
} as const satisfies Record<string, ResourceKind>;

export type KindName = keyof typeof KINDS;

/** A failed API call: the HTTP status and the Kubernetes `Status.reason`. */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    /** Seconds from a Retry-After header (429), when given. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

export const isNotFound = (error: unknown): boolean => error instanceof KubeApiError && error.status === 404;
export const isConflict = (error: unknown): boolean => error instanceof KubeApiError && error.status === 409;
export const isGone = (error: unknown): boolean => error instanceof KubeApiError && error.status === 410;
export const isAlreadyExists = (error: unknown): boolean => error instanceof KubeApiError && error.status === 409 && error.reason === 'AlreadyExists';

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
}

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
