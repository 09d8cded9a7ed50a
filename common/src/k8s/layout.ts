// On-disk layouts shared by the operator (which writes them into ConfigMaps and Secrets) and the
// server (which reads them from the mounted volumes and hot-reloads on the `..data` swap):
//
//   policy directory  (ConfigMap, mounted as policy.directory)
//     <policy name>.yaml      one policy per file, exactly a policy file (decisions.md 7)
//     default-policy.txt      the name of the namespace's default policy (absent: none marked)
//   key-ring directory (Secret)
//     <tenant resource name>.json   {format, tenant_id, generation, current_kid, keys[{kid, secret}]}
//   API-key directory (Secret)
//     <tenant resource name>.json   {format, generation, keys[{identity, tenant_id, key_sha256, scopes, role, purpose, access_level}]}
//     _<anything>.json              entries not owned by a Tenant (the operator's own admin key)
//   tenant settings directory (ConfigMap)
//     <tenant resource name>.json   {format, tenant_id, generation, rate_limit, policies}
//
// File names are data keys of a ConfigMap or Secret, so they must match [-._a-zA-Z0-9]+; tenant
// resource names (DNS subdomains) always do, tenant ids (which may hold ':') need not, which is
// why a file is named after the resource and carries the tenant id inside. Tenant resource names
// never start with `_`, so `_`-prefixed files cannot collide with a tenant's.
//
// Parsers never throw, and their problems name fields, never values (a key ring holds secrets).
// Serializers are deterministic (same input, same bytes), so content hashes are stable and the
// operator can compare desired and actual data without spurious updates.
import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { stringify } from 'yaml';
import { formatFieldPath, type PathSegment } from '../policy/parse.js';
import type { Policy } from '../policy/types.js';
import { API_KEY_SCOPES, KID_PATTERN, TENANT_ID_PATTERN } from './types.js';

/** Largest total payload of one ConfigMap or Secret the API server accepts. */
export const MAX_OBJECT_DATA_BYTES = 1024 * 1024;
/** Valid ConfigMap/Secret data key (and so file name in the mounted volume). */
export const DATA_KEY_PATTERN = /^[-._a-zA-Z0-9]+$/;

export const DEFAULT_POLICY_FILE = 'default-policy.txt';
export const KEYRING_FORMAT = 'veil.keyring/v1';
export const API_KEYS_FORMAT = 'veil.api-keys/v1';
export const TENANT_SETTINGS_FORMAT = 'veil.tenant/v1';
/** Most keys one ring may hold (the server's session.keyring maxItems). */
export const MAX_KEYRING_KEYS = 16;
/** Most API keys one file may hold. */
export const MAX_API_KEYS_PER_FILE = 256;

/** Annotations the operator sets on what it renders. */
export const VEIL_ANNOTATIONS = {
  /** sha256 of the rendered data, so drift and no-op updates are cheap to detect. */
  contentHash: 'veil.dev/content-hash',
} as const;

export interface FileProblem {
  /** `file: field` location, e.g. `acme.json: keys[1].kid`. */
  readonly field: string;
  readonly message: string;
}

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: readonly FileProblem[] };

/** `sha256:<hex>` of a text, the form of `policyVersion` and the content-hash annotation. */
export function contentHash(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** Content hash of a whole directory (file name and content of each file, in name order). */
export function directoryHash(files: Readonly<Record<string, string>>): string {
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort()) {
    hash.update(`${name.length}:${name}`, 'utf8');
    const content = files[name]!;
    hash.update(`${Buffer.byteLength(content, 'utf8')}:`, 'utf8');
    hash.update(content, 'utf8');
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Bytes a set of files takes in a ConfigMap or Secret (Secret values before base64). */
export function directoryBytes(files: Readonly<Record<string, string>>): number {
  let total = 0;
  for (const [name, content] of Object.entries(files)) total += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(content, 'utf8');
  return total;
}

/** File name of a tenant's key-ring, API-key and settings files. */
export function tenantFileName(tenantResourceName: string): string {
  if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(tenantResourceName)) throw new Error('tenantFileName: not a Kubernetes resource name');
  return `${tenantResourceName}.json`;
}

// ---------------------------------------------------------------------------------------------
// Policy directory

/** File name of a policy in the policy directory. */
export function policyFileName(policyName: string): string {
  if (!/^[a-z0-9_-]{1,128}$/.test(policyName)) throw new Error('policyFileName: not a policy name');
  return `${policyName}.yaml`;
}

/**
 * One policy file: a provenance comment, then the policy as YAML. parsePolicy reads it back to
 * a deep-equal policy (tested). Key order follows the input object, which is the CRD spec's order.
 */
export function serializePolicyFile(policy: Policy, source?: string): string {
  const header = source === undefined ? '' : `# Rendered by veil-operator from ${source}; edit the resource, not this file.\n`;
  return header + stringify(policy, { lineWidth: 0, aliasDuplicateObjects: false });
}

export interface PolicyDirectoryEntry {
  readonly policy: Policy;
  /** `namespace/name` of the TokenizationPolicy, for the provenance comment. */
  readonly source?: string;
  readonly default?: boolean;
}

/**
 * The files of a policy directory. Throws when two entries share a name or several are marked
 * default: the operator must decide (and report through status) which one wins before rendering.
 */
export function renderPolicyDirectory(entries: readonly PolicyDirectoryEntry[]): Record<string, string> {
  const files: Record<string, string> = {};
  const defaults = entries.filter((entry) => entry.default === true);
  if (defaults.length > 1) throw new Error('renderPolicyDirectory: more than one policy is marked default');
  for (const entry of [...entries].sort((a, b) => (a.policy.name < b.policy.name ? -1 : a.policy.name > b.policy.name ? 1 : 0))) {
    const name = policyFileName(entry.policy.name);
    if (Object.hasOwn(files, name)) throw new Error('renderPolicyDirectory: duplicate policy name');
    files[name] = serializePolicyFile(entry.policy, entry.source);
  }
  if (defaults[0] !== undefined) files[DEFAULT_POLICY_FILE] = `${defaults[0].policy.name}\n`;
  return files;
}

/** Parse the default-policy marker: the name of a policy of the directory, or a problem. */
export function parseDefaultPolicyFile(text: string): ParseResult<string> {
  const name = text.trim();
  if (!/^[a-z0-9_-]{1,128}$/.test(name)) return { ok: false, problems: [{ field: DEFAULT_POLICY_FILE, message: 'must hold one policy name ([a-z0-9_-]+)' }] };
  return { ok: true, value: name };
}

// ---------------------------------------------------------------------------------------------
// Key ring

export interface KeyRingFileKey {
  readonly kid: string;
  /** 32 bytes as 64 hex characters or standard base64 (decisions.md 10). */
  readonly secret: string;
}

/**
 * One tenant's key ring. `current_kid` and `keys` are exactly the server's session.keyring shape;
 * `generation` increases by one with every change the operator writes, and the server reports
 * the generation it has loaded per tenant in /v1/diagnostics, which is what rotation waits on.
 */
export interface KeyRingFile {
  readonly format: typeof KEYRING_FORMAT;
  readonly tenant_id: string;
  readonly generation: number;
  readonly current_kid: string;
  readonly keys: readonly KeyRingFileKey[];
}

const HEX_SECRET = /^[0-9a-fA-F]{64}$/;
const BASE64_SECRET = /^[A-Za-z0-9+/]{43}=$/;

/** True when a key-ring secret is 32 bytes in one of the two accepted canonical spellings. */
export function isKeyRingSecret(text: string): boolean {
  if (HEX_SECRET.test(text)) return true;
  if (!BASE64_SECRET.test(text)) return false;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === 32 && bytes.toString('base64') === text;
}

const generation = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;

const KEYRING_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'tenant_id', 'generation', 'current_kid', 'keys'],
  properties: {
    format: { const: KEYRING_FORMAT },
    tenant_id: { type: 'string', pattern: TENANT_ID_PATTERN },
    generation,
    current_kid: { type: 'string', pattern: KID_PATTERN },
    keys: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_KEYRING_KEYS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['kid', 'secret'],
        properties: { kid: { type: 'string', pattern: KID_PATTERN }, secret: { type: 'string', maxLength: 64 } },
      },
    },
  },
} as const;

/** Parse a key-ring file (JSON). `file` prefixes problem locations. */
export function parseKeyRingFile(text: string, file: string): ParseResult<KeyRingFile> {
  const data = parseJson(text, file);
  if (!data.ok) return data;
  const problems = schemaProblems(validators().keyRing, data.value, file);
  if (problems.length > 0) return { ok: false, problems };
  const ring = data.value as KeyRingFile;
  const kids = new Set<string>();
  ring.keys.forEach((key, index) => {
    if (kids.has(key.kid)) problems.push({ field: at(file, ['keys', index, 'kid']), message: 'duplicates an earlier kid' });
    kids.add(key.kid);
    if (!isKeyRingSecret(key.secret)) problems.push({ field: at(file, ['keys', index, 'secret']), message: 'must be 32 bytes written as 64 hex characters or standard base64' });
  });
  if (!kids.has(ring.current_kid)) problems.push({ field: at(file, ['current_kid']), message: 'must be the kid of one of keys' });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: ring };
}

/** Serialize a key ring. Throws (naming the field) when the ring would not parse back. */
export function serializeKeyRingFile(ring: Omit<KeyRingFile, 'format'>): string {
  const value: KeyRingFile = {
    format: KEYRING_FORMAT,
    tenant_id: ring.tenant_id,
    generation: ring.generation,
    current_kid: ring.current_kid,
    keys: ring.keys.map((key) => ({ kid: key.kid, secret: key.secret })),
  };
  return serializeChecked(value, (text) => parseKeyRingFile(text, 'keyring'));
}

// ---------------------------------------------------------------------------------------------
// API keys

export interface ApiKeyFileEntry {
  readonly identity: string;
  /** Absent for keys that belong to no tenant (the operator's own). */
  readonly tenant_id?: string;
  /**
   * Lowercase hex SHA-256 of the UTF-8 key. Only digests are written: the server compares
   * digests anyway (auth/api-key.ts), and a leaked file then grants nothing.
   */
  readonly key_sha256: string;
  readonly scopes: readonly (typeof API_KEY_SCOPES)[number][];
  readonly role?: string;
  readonly purpose?: string;
  /** RAG clearance: a rag.classification_levels label (the server checks it against its list). */
  readonly access_level?: string;
}

export interface ApiKeysFile {
  readonly format: typeof API_KEYS_FORMAT;
  readonly generation: number;
  readonly keys: readonly ApiKeyFileEntry[];
}

/** The digest written as `key_sha256`. */
export function apiKeyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const attribute = { type: 'string', minLength: 1, maxLength: 4096 } as const;

const API_KEYS_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'generation', 'keys'],
  properties: {
    format: { const: API_KEYS_FORMAT },
    generation,
    keys: {
      type: 'array',
      maxItems: MAX_API_KEYS_PER_FILE,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['identity', 'key_sha256', 'scopes'],
        properties: {
          identity: attribute,
          tenant_id: { type: 'string', pattern: TENANT_ID_PATTERN },
          key_sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
          scopes: { type: 'array', uniqueItems: true, maxItems: API_KEY_SCOPES.length, items: { enum: [...API_KEY_SCOPES] } },
          role: attribute,
          purpose: attribute,
          access_level: { type: 'string', pattern: '^[a-z0-9_-]{1,128}$' },
        },
      },
    },
  },
} as const;

export function parseApiKeysFile(text: string, file: string): ParseResult<ApiKeysFile> {
  const data = parseJson(text, file);
  if (!data.ok) return data;
  const problems = schemaProblems(validators().apiKeys, data.value, file);
  if (problems.length > 0) return { ok: false, problems };
  const parsed = data.value as ApiKeysFile;
  const digests = new Set<string>();
  parsed.keys.forEach((entry, index) => {
    if (digests.has(entry.key_sha256)) problems.push({ field: at(file, ['keys', index, 'key_sha256']), message: 'duplicates an earlier key' });
    digests.add(entry.key_sha256);
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: parsed };
}

export function serializeApiKeysFile(file: Omit<ApiKeysFile, 'format'>): string {
  const value: ApiKeysFile = {
    format: API_KEYS_FORMAT,
    generation: file.generation,
    keys: file.keys.map((entry) => ({
      identity: entry.identity,
      ...(entry.tenant_id !== undefined ? { tenant_id: entry.tenant_id } : {}),
      key_sha256: entry.key_sha256,
      scopes: [...entry.scopes],
      ...(entry.role !== undefined ? { role: entry.role } : {}),
      ...(entry.purpose !== undefined ? { purpose: entry.purpose } : {}),
      ...(entry.access_level !== undefined ? { access_level: entry.access_level } : {}),
    })),
  };
  return serializeChecked(value, (text) => parseApiKeysFile(text, 'api-keys'));
}

// ---------------------------------------------------------------------------------------------
// Tenant settings

/** Same shape and names as the server config's `tenants.<id>.rate_limit`. */
export interface TenantRateLimitSettings {
  readonly requests_per_second?: number;
  readonly burst_size?: number;
}

export interface TenantSettingsFile {
  readonly format: typeof TENANT_SETTINGS_FORMAT;
  readonly tenant_id: string;
  readonly generation: number;
  readonly rate_limit?: TenantRateLimitSettings;
  /** Policy names the tenant may use; absent: every policy. */
  readonly policies?: readonly string[];
}

const TENANT_SETTINGS_FILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'tenant_id', 'generation'],
  properties: {
    format: { const: TENANT_SETTINGS_FORMAT },
    tenant_id: { type: 'string', pattern: TENANT_ID_PATTERN },
    generation,
    rate_limit: {
      type: 'object',
      additionalProperties: false,
      properties: { requests_per_second: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000 }, burst_size: { type: 'integer', minimum: 1, maximum: 10_000_000 } },
    },
    policies: { type: 'array', uniqueItems: true, maxItems: 256, items: { type: 'string', pattern: '^[a-z0-9_-]{1,128}$' } },
  },
} as const;

export function parseTenantSettingsFile(text: string, file: string): ParseResult<TenantSettingsFile> {
  const data = parseJson(text, file);
  if (!data.ok) return data;
  const problems = schemaProblems(validators().tenantSettings, data.value, file);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: data.value as TenantSettingsFile };
}

export function serializeTenantSettingsFile(file: Omit<TenantSettingsFile, 'format'>): string {
  const value: TenantSettingsFile = {
    format: TENANT_SETTINGS_FORMAT,
    tenant_id: file.tenant_id,
    generation: file.generation,
    ...(file.rate_limit !== undefined
      ? {
          rate_limit: {
            ...(file.rate_limit.requests_per_second !== undefined ? { requests_per_second: file.rate_limit.requests_per_second } : {}),
            ...(file.rate_limit.burst_size !== undefined ? { burst_size: file.rate_limit.burst_size } : {}),
          },
        }
      : {}),
    ...(file.policies !== undefined ? { policies: [...file.policies] } : {}),
  };
  return serializeChecked(value, (text) => parseTenantSettingsFile(text, 'tenant'));
}

// ---------------------------------------------------------------------------------------------
// Helpers

interface Validators {
  readonly keyRing: ValidateFunction;
  readonly apiKeys: ValidateFunction;
  readonly tenantSettings: ValidateFunction;
}

let compiled: Validators | undefined;

function validators(): Validators {
  if (compiled === undefined) {
    const ajv = new Ajv({ allErrors: true, strict: true });
    compiled = {
      keyRing: ajv.compile(KEYRING_FILE_SCHEMA),
      apiKeys: ajv.compile(API_KEYS_FILE_SCHEMA),
      tenantSettings: ajv.compile(TENANT_SETTINGS_FILE_SCHEMA),
    };
  }
  return compiled;
}

function at(file: string, path: readonly PathSegment[]): string {
  return path.length === 0 ? file : `${file}: ${formatFieldPath(path)}`;
}

function pointerPath(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}

function schemaProblems(validate: ValidateFunction, data: unknown, file: string): FileProblem[] {
  if (validate(data)) return [];
  return (validate.errors ?? []).map((error: ErrorObject) => {
    const path = pointerPath(error.instancePath);
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'required':
        return { field: at(file, [...path, String(params['missingProperty'])]), message: 'is required' };
      case 'additionalProperties': {
        // An unknown key is named only when it looks like a field name (it could be anything).
        const key = String(params['additionalProperty']);
        return { field: at(file, /^[A-Za-z0-9_]{1,64}$/.test(key) ? [...path, key] : path), message: 'unknown key' };
      }
      case 'const':
        return { field: at(file, path), message: 'has an unsupported value' };
      default:
        // ajv's messages describe the rule (pattern, bounds, type), never the data.
        return { field: at(file, path), message: error.message ?? 'is invalid' };
    }
  });
}

function parseJson(text: string, file: string): ParseResult<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // JSON.parse messages can quote the input; report the position-free fact only.
    return { ok: false, problems: [{ field: file, message: 'is not valid JSON' }] };
  }
}

function serializeChecked(value: unknown, check: (text: string) => ParseResult<unknown>): string {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  const parsed = check(text);
  if (!parsed.ok) throw new Error(`cannot serialize: ${parsed.problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ')}`);
  return text;
}
