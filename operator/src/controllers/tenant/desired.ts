// Pure desired state of a Tenant's files: the key-ring file (from the rotation plan), the
// API-key file (SHA-256 digests of the keys held in the referenced Secrets, never the keys), and
// the tenant-settings file (rate limit, allowed policies), each with a generation that grows
// only when its content changes. Also the shared-object data edits: one tenant's file replaced,
// and files of tenants that no longer exist swept out.
import {
  apiKeyDigest,
  parseApiKeysFile,
  parseKeyRingFile,
  parseTenantSettingsFile,
  serializeApiKeysFile,
  serializeKeyRingFile,
  serializeTenantSettingsFile,
  type ApiKeyFileEntry,
  type Tenant,
} from '@veil/common';
import type { Ring } from './rotation.js';

/** Decoded text of one data entry of a Secret (base64) or a ConfigMap (plain). */
export function secretText(data: Readonly<Record<string, string>> | undefined, key: string): string | undefined {
  const value = data?.[key];
  return value === undefined ? undefined : Buffer.from(value, 'base64').toString('utf8');
}

export function toSecretData(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

export type RingRead = { readonly state: 'absent' } | { readonly state: 'ok'; readonly ring: Ring } | { readonly state: 'unreadable'; readonly problems: readonly string[] };

/** Read a tenant's ring file; a file for another tenant id counts as unreadable (fail closed). */
export function readRing(text: string | undefined, file: string, tenantId: string): RingRead {
  if (text === undefined) return { state: 'absent' };
  const parsed = parseKeyRingFile(text, file);
  if (!parsed.ok) return { state: 'unreadable', problems: parsed.problems.map((problem) => `${problem.field}: ${problem.message}`) };
  if (parsed.value.tenant_id !== tenantId) return { state: 'unreadable', problems: [`${file}: tenant_id: does not match spec.tenantId`] };
  return { state: 'ok', ring: { generation: parsed.value.generation, current_kid: parsed.value.current_kid, keys: parsed.value.keys } };
}

export function renderRing(tenantId: string, ring: Ring): string {
  return serializeKeyRingFile({ tenant_id: tenantId, generation: ring.generation, current_kid: ring.current_kid, keys: ring.keys });
}

/** Look-up of a referenced Secret's data (base64 values), undefined when the Secret is absent. */
export type SecretLookup = (name: string) => Readonly<Record<string, string>> | undefined;

export interface ApiKeysPlan {
  readonly text: string;
  readonly count: number;
  readonly problems: string[];
}

/**
 * The tenant's API-key file. A reference that cannot be resolved (Secret or key missing, empty
 * key) is left out, so deleting a key's Secret revokes it; the problem names the field.
 */
export function planApiKeys(tenant: Tenant, lookup: SecretLookup, currentText: string | undefined, file: string): ApiKeysPlan {
  const problems: string[] = [];
  const entries: ApiKeyFileEntry[] = [];
  const seen = new Set<string>();
  for (const [index, apiKey] of (tenant.spec.apiKeys ?? []).entries()) {
    const field = `spec.apiKeys[${index}].secretRef`;
    const data = lookup(apiKey.secretRef.name);
    if (data === undefined) {
      problems.push(`${field}: Secret ${apiKey.secretRef.name} not found`);
      continue;
    }
    const raw = data[apiKey.secretRef.key];
    if (raw === undefined) {
      problems.push(`${field}: Secret ${apiKey.secretRef.name} has no key ${apiKey.secretRef.key}`);
      continue;
    }
    const key = Buffer.from(raw, 'base64').toString('utf8');
    if (key.length < 16) {
      problems.push(`${field}: the API key must be at least 16 characters`);
      continue;
    }
    const digest = apiKeyDigest(key);
    if (seen.has(digest)) {
      problems.push(`${field}: the same API key is referenced twice`);
      continue;
    }
    seen.add(digest);
    entries.push({
      identity: apiKey.identity,
      tenant_id: tenant.spec.tenantId,
      key_sha256: digest,
      scopes: [...(apiKey.scopes ?? [])],
      ...(apiKey.role === undefined ? {} : { role: apiKey.role }),
      ...(apiKey.purpose === undefined ? {} : { purpose: apiKey.purpose }),
      ...(apiKey.accessLevel === undefined ? {} : { access_level: apiKey.accessLevel }),
    });
  }
  const current = currentText === undefined ? undefined : parseApiKeysFile(currentText, file);
  const previousGeneration = current?.ok === true ? current.value.generation : 0;
  // Entries are built in the serializer's field order, so equal JSON means equal content.
  const unchanged = current?.ok === true && JSON.stringify(current.value.keys) === JSON.stringify(entries);
  const text = unchanged && currentText !== undefined ? currentText : serializeApiKeysFile({ generation: previousGeneration + 1, keys: entries });
  return { text, count: entries.length, problems };
}

/** The tenant's settings file: the server config's `tenants.<id>` shape. */
export function planSettings(tenant: Tenant, currentText: string | undefined, file: string): string {
  const rateLimit = tenant.spec.rateLimit;
  const body = {
    tenant_id: tenant.spec.tenantId,
    ...(rateLimit === undefined
      ? {}
      : {
          rate_limit: {
            ...(rateLimit.requestsPerSecond === undefined ? {} : { requests_per_second: rateLimit.requestsPerSecond }),
            ...(rateLimit.burstSize === undefined ? {} : { burst_size: rateLimit.burstSize }),
          },
        }),
    ...(tenant.spec.policies === undefined ? {} : { policies: [...tenant.spec.policies] }),
  };
  const current = currentText === undefined ? undefined : parseTenantSettingsFile(currentText, file);
  if (current?.ok === true) {
    const { format: _format, generation, ...rest } = current.value;
    if (JSON.stringify(rest) === JSON.stringify(body) && currentText !== undefined) return currentText;
    return serializeTenantSettingsFile({ ...body, generation: generation + 1 });
  }
  return serializeTenantSettingsFile({ ...body, generation: 1 });
}

/**
 * Data of a shared object after setting (or, with `content` undefined, removing) one tenant's
 * file and sweeping the files of tenants that no longer exist. `_`-prefixed files belong to no
 * tenant and are kept.
 */
export function editSharedData(
  current: Readonly<Record<string, string>> | undefined,
  file: string,
  content: string | undefined,
  liveFiles: ReadonlySet<string>,
): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [name, value] of Object.entries(current ?? {})) {
    if (name !== file && (name.startsWith('_') || liveFiles.has(name))) data[name] = value;
  }
  if (content !== undefined) data[file] = content;
  return data;
}
