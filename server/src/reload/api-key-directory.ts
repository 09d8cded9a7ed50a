// `auth.api_keys_directory`: the API-key files the Kubernetes operator renders into a Secret
// mounted as a directory (@veil/common k8s/layout.ts, `veil.api-keys/v1`): one `<tenant>.json`
// per Tenant resource, plus `_<name>.json` files for keys that belong to no tenant (the
// operator's own admin key). Every entry holds only `key_sha256`, never a key.
//
// A tenant's file may only grant that tenant's keys: every entry of a file whose name does not
// start with `_` must carry a tenant_id, and the same one. A misrendered or hand-edited file can
// therefore never mint an untenanted (platform-wide) credential or mix two tenants. Problems name
// the file and the field, never a digest.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseApiKeysFile } from '@veil/common';
import type { ApiKeyConfig } from '../config/schema.js';

/** Files the directory reader considers (hidden entries such as `..data` are never read). */
export const API_KEY_FILE_NAME = /^[^.][-._a-zA-Z0-9]*\.json$/;
/** One API-key file larger than this is refused unread. */
export const MAX_API_KEY_DIRECTORY_FILE_BYTES = 1024 * 1024;
/** Most files one directory may hold. */
export const MAX_API_KEY_DIRECTORY_FILES = 10_000;

export interface ApiKeyDirectoryRead {
  /** All entries in file-name order; undefined when any file is unusable. */
  readonly entries?: readonly ApiKeyConfig[];
  /** Per entry (same index): `file: keys[i]`, for duplicate reports. */
  readonly origins?: readonly string[];
  readonly problems: string[];
}

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : 'read error';
}

/** Read every API-key file of `directory`. Never throws. */
export function readApiKeyDirectory(directory: string): ApiKeyDirectoryRead {
  const label = `auth.api_keys_directory ${directory}`;
  let names: string[];
  try {
    names = readdirSync(directory)
      .filter((name) => API_KEY_FILE_NAME.test(name))
      .sort();
  } catch (error) {
    return { problems: [`${label}: cannot be read (${errorCode(error)})`] };
  }
  if (names.length > MAX_API_KEY_DIRECTORY_FILES) return { problems: [`${label}: holds more than ${MAX_API_KEY_DIRECTORY_FILES} files`] };
  const entries: ApiKeyConfig[] = [];
  const origins: string[] = [];
  const problems: string[] = [];
  for (const name of names) {
    const path = join(directory, name);
    let text: string;
    try {
      const stats = statSync(path);
      if (!stats.isFile()) continue; // a sub-directory is not a key file
      if (stats.size > MAX_API_KEY_DIRECTORY_FILE_BYTES) {
        problems.push(`${label}: ${name}: larger than ${MAX_API_KEY_DIRECTORY_FILE_BYTES} bytes`);
        continue;
      }
      text = readFileSync(path, 'utf8');
    } catch (error) {
      // A dangling link is a file being removed after a `..data` swap: gone, not broken.
      if (errorCode(error) === 'ENOENT') continue;
      problems.push(`${label}: ${name}: cannot be read (${errorCode(error)})`);
      continue;
    }
    const parsed = parseApiKeysFile(text, name);
    if (!parsed.ok) {
      problems.push(...parsed.problems.map((problem) => `${label}: ${problem.field}: ${problem.message}`));
      continue;
    }
    const tenantFile = !name.startsWith('_');
    const tenants = new Set(parsed.value.keys.map((entry) => entry.tenant_id));
    if (tenantFile && (tenants.has(undefined) || tenants.size > 1)) {
      problems.push(`${label}: ${name}: keys[].tenant_id: every key of a tenant's file must carry the same tenant_id (files for untenanted keys are named _<name>.json)`);
      continue;
    }
    parsed.value.keys.forEach((entry, index) => {
      entries.push(
        Object.freeze({
          identity: entry.identity,
          key_sha256: entry.key_sha256,
          scopes: Object.freeze([...entry.scopes]),
          ...(entry.tenant_id !== undefined ? { tenant_id: entry.tenant_id } : {}),
          ...(entry.role !== undefined ? { role: entry.role } : {}),
          ...(entry.purpose !== undefined ? { purpose: entry.purpose } : {}),
          ...(entry.access_level !== undefined ? { access_level: entry.access_level } : {}),
        }),
      );
      origins.push(`${name}: keys[${index}]`);
    });
  }
  if (problems.length > 0) return { problems };
  return { entries: Object.freeze(entries), origins: Object.freeze(origins), problems: [] };
}
