// TypeScript shapes of the two custom resources (veil.dev/v1alpha1, decisions.md section 11):
// TokenizationPolicy and Tenant, spec and status. They mirror the CRD schemas of crd-schemas.ts
// field for field (a test validates typed samples against the generated CRDs). Pure types and
// constants: no Kubernetes client here, the operator brings its own.
import { AUTH_SCOPES, type AuthScope } from '../auth-scopes.js';
import type { Policy } from '../policy/types.js';

export const VEIL_API_GROUP = 'veil.dev';
export const VEIL_API_VERSION = 'v1alpha1';
/** `apiVersion` of every Veil custom resource. */
export const VEIL_API_GROUP_VERSION = `${VEIL_API_GROUP}/${VEIL_API_VERSION}` as const;

/** Names of each kind as the API server knows them (plural is the URL path segment). */
export const CRD_NAMES = {
  TokenizationPolicy: { kind: 'TokenizationPolicy', listKind: 'TokenizationPolicyList', plural: 'tokenizationpolicies', singular: 'tokenizationpolicy', shortNames: ['tpol'] },
  Tenant: { kind: 'Tenant', listKind: 'TenantList', plural: 'tenants', singular: 'tenant', shortNames: ['vtenant'] },
} as const;
export type VeilKind = keyof typeof CRD_NAMES;

/**
 * The API scopes an API key may carry (interface.md section 5): the server's AUTH_SCOPES list
 * itself (auth-scopes.ts), so a Tenant cannot grant a scope the server does not know.
 */
export const API_KEY_SCOPES = AUTH_SCOPES;
export type ApiKeyScope = AuthScope;

/** Tenant ids: the server's `tenants` key pattern (config schema). */
export const TENANT_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';
/** Key ids: the server's session.keyring kid pattern. */
export const KID_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

/** The subset of ObjectMeta the contract relies on. */
export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly generation?: number;
  readonly creationTimestamp?: string;
  readonly deletionTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly finalizers?: readonly string[];
}

/** metav1.Condition, as every Kubernetes API with conditions writes it. */
export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly observedGeneration?: number;
  /** RFC 3339 date-time of the last status change. */
  readonly lastTransitionTime: string;
  /** CamelCase machine-readable reason. */
  readonly reason: string;
  /** Human-readable; names fields, never values. */
  readonly message: string;
}

// ---------------------------------------------------------------------------------------------
// TokenizationPolicy

export interface TokenizationPolicySpec {
  /**
   * One policy, in exactly the schema of a policy file (policies/schema.json; field names kept
   * snake_case so a file pastes in unchanged and the mapping is the identity). `policy.name`
   * must equal `metadata.name` (a CEL rule), which makes policy names unique per namespace.
   */
  readonly policy: Policy;
  /** Marks the namespace's default policy (`policy.default`); at most one should set it. */
  readonly default?: boolean;
}

/** Condition types of a TokenizationPolicy. */
export const POLICY_CONDITIONS = { Valid: 'Valid', Published: 'Published' } as const;

export interface TokenizationPolicyStatus {
  readonly observedGeneration?: number;
  /** Content hash of the published policy file (`sha256:<hex>`). */
  readonly policyVersion?: string;
  readonly conditions?: readonly Condition[];
}

export interface TokenizationPolicy {
  readonly apiVersion: typeof VEIL_API_GROUP_VERSION;
  readonly kind: 'TokenizationPolicy';
  readonly metadata: ObjectMeta;
  readonly spec: TokenizationPolicySpec;
  readonly status?: TokenizationPolicyStatus;
}

// ---------------------------------------------------------------------------------------------
// Tenant

/** Where the raw API key lives: one key of a Secret in the Tenant's namespace. */
export interface SecretKeyReference {
  readonly name: string;
  readonly key: string;
}

export interface TenantApiKey {
  /** The caller identity the server reports for this key (audit `identity`). */
  readonly identity: string;
  readonly secretRef: SecretKeyReference;
  /** Granted scopes; none means authenticate-only (health, capabilities). */
  readonly scopes?: readonly ApiKeyScope[];
  readonly role?: string;
  readonly purpose?: string;
  /** RAG clearance: the highest classification label the key may read (server rag.classification_levels). */
  readonly accessLevel?: string;
}

export interface TenantRateLimit {
  readonly requestsPerSecond?: number;
  readonly burstSize?: number;
}

export interface TenantSessionKeys {
  /**
   * Rotate automatically this long after the current key was created: a Go/Kubernetes duration
   * of hours, minutes and seconds (`720h`, `90m`, `1h30m`), at least 1h.
   */
  readonly rotationPeriod?: string;
  /**
   * RFC 3339 date-time. An SRE sets it (usually to now) to request one rotation; the operator
   * rotates once when it is in the past and newer than `status.rotation.lastRotateAt`.
   */
  readonly rotateAt?: string;
}

export interface TenantSpec {
  /** The tenant id callers carry (API key tenant_id, JWT tenant claim). Immutable. */
  readonly tenantId: string;
  readonly apiKeys?: readonly TenantApiKey[];
  readonly rateLimit?: TenantRateLimit;
  /** Policy names this tenant may use; absent means every policy of the namespace. */
  readonly policies?: readonly string[];
  readonly sessionKeys?: TenantSessionKeys;
}

export const ROTATION_PHASES = ['Idle', 'Staging', 'Switching', 'Retiring'] as const;
export type RotationPhase = (typeof ROTATION_PHASES)[number];

/**
 * Phase of one key in the ring: `Staged` (present, not yet used to seal), `Current` (seals new
 * blobs), `Retiring` (still opens old blobs until removed).
 */
export const KEY_PHASES = ['Staged', 'Current', 'Retiring'] as const;
export type KeyPhase = (typeof KEY_PHASES)[number];

export interface TenantKeyStatus {
  readonly kid: string;
  /** RFC 3339 date-time the key was generated. */
  readonly created: string;
  readonly phase: KeyPhase;
}

/** Why a rotation started. */
export const ROTATION_REASONS = ['Initial', 'Scheduled', 'Requested'] as const;
export type RotationReason = (typeof ROTATION_REASONS)[number];

export interface TenantRotationStatus {
  readonly phase: RotationPhase;
  readonly reason?: RotationReason;
  /** The kid being introduced (Staging, Switching) and the one being retired (Switching, Retiring). */
  readonly newKid?: string;
  readonly oldKid?: string;
  /** RFC 3339 date-times: rotation start, current phase start, earliest removal of oldKid. */
  readonly startedAt?: string;
  readonly phaseStartedAt?: string;
  readonly retireAfter?: string;
  /** Key-ring generation every ready replica must report before the phase advances. */
  readonly targetGeneration?: number;
  /** The `spec.sessionKeys.rotateAt` value last acted on (so one request rotates once). */
  readonly lastRotateAt?: string;
  /** RFC 3339 date-time the last rotation finished (back to Idle). */
  readonly lastCompletedAt?: string;
}

/** Condition types of a Tenant. */
export const TENANT_CONDITIONS = { Ready: 'Ready', KeysPublished: 'KeysPublished', ApiKeysResolved: 'ApiKeysResolved' } as const;

export interface TenantStatus {
  readonly observedGeneration?: number;
  readonly currentKid?: string;
  /** Generation of the key-ring file last written for this tenant. */
  readonly keyRingGeneration?: number;
  /** Public facts about the ring; never a secret. */
  readonly keys?: readonly TenantKeyStatus[];
  readonly rotation?: TenantRotationStatus;
  readonly conditions?: readonly Condition[];
}

export interface Tenant {
  readonly apiVersion: typeof VEIL_API_GROUP_VERSION;
  readonly kind: 'Tenant';
  readonly metadata: ObjectMeta;
  readonly spec: TenantSpec;
  readonly status?: TenantStatus;
}
