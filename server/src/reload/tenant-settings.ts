// Per-tenant settings from `tenants_directory`: the ConfigMap the Kubernetes operator renders
// from Tenant resources, mounted as a directory (@veil/common layout: one
// `{format, tenant_id, generation, rate_limit?, policies?}` file per Tenant). Reloaded like the
// other mounted sources; an invalid file keeps that tenant's last good settings.
//
// What the settings mean:
// - `rate_limit`: the tenant's bucket (plugins/rate-limit.ts). Per field, the file wins over
//   `tenants.<id>.rate_limit` in the config, which wins over `rate_limit`. Only applies when
//   `rate_limit.enabled`.
// - `policies`: the policy names the tenant may use. Absent (no list, or no settings file for the
//   tenant): every loaded policy. A list, even an empty one, is exact: any policy not on it,
//   named in the request or implied (the default, a continued session's policy), is refused
//   with 403 VEIL_POLICY_DENIED (services/policies.ts PolicyRegistry.restrictedTo).
// Untenanted callers have no settings.
import type { TenantRateLimitSettings } from '@veil/common';
import { parseTenantSettingsFile } from '@veil/common';
import { TenantDirectory, type TenantDirectoryReload } from './tenant-directory.js';

export const MAX_TENANT_SETTINGS_FILE_BYTES = 256 * 1024;

export interface TenantSettings {
  readonly rate_limit?: TenantRateLimitSettings;
  /** Allowed policy names; undefined: every policy. */
  readonly policies?: ReadonlySet<string>;
}

export interface TenantSettingsStatus {
  readonly tenant: string;
  readonly file: string;
  readonly file_generation: number;
  readonly rate_limit: boolean;
  /** Allowed policy names (names are not secret), or null: every policy. */
  readonly policies: readonly string[] | null;
  readonly loaded_at_unix: number;
  readonly problems?: readonly string[];
}

function parseSettings(text: string, file: string): { ok: true; tenant: string; generation: number; value: TenantSettings } | { ok: false; problems: string[] } {
  const parsed = parseTenantSettingsFile(text, file);
  if (!parsed.ok) return { ok: false, problems: parsed.problems.map((problem) => `${problem.field}: ${problem.message}`) };
  const value: TenantSettings = Object.freeze({
    ...(parsed.value.rate_limit !== undefined ? { rate_limit: Object.freeze({ ...parsed.value.rate_limit }) } : {}),
    ...(parsed.value.policies !== undefined ? { policies: new Set(parsed.value.policies) } : {}),
  });
  return { ok: true, tenant: parsed.value.tenant_id, generation: parsed.value.generation, value };
}

function identity(settings: TenantSettings): string {
  return JSON.stringify([settings.rate_limit ?? null, settings.policies === undefined ? null : [...settings.policies].sort()]);
}

export class TenantSettingsSource {
  readonly directory: string | undefined;
  readonly #settings: TenantDirectory<TenantSettings> | undefined;

  /** Throws (a startup configuration error) when the directory or a settings file is unusable. */
  constructor(options: { directory?: string | undefined; now: () => number }) {
    this.directory = options.directory;
    this.#settings =
      options.directory === undefined
        ? undefined
        : new TenantDirectory<TenantSettings>({
            label: 'tenants_directory',
            directory: options.directory,
            maxFileBytes: MAX_TENANT_SETTINGS_FILE_BYTES,
            parse: parseSettings,
            same: (a, b) => identity(a) === identity(b),
            now: options.now,
          });
  }

  /** The tenant's settings, or undefined (no file: config defaults, every policy allowed). */
  settingsOf(tenant: string | null): TenantSettings | undefined {
    return tenant === null ? undefined : this.#settings?.get(tenant)?.value;
  }

  get generation(): string {
    return this.#settings === undefined ? '' : this.#settings.generation(identity);
  }

  watchPaths(): string[] {
    return this.directory === undefined ? [] : [this.directory];
  }

  stamp(): string {
    return this.#settings?.stamp() ?? '';
  }

  status(): { tenants: TenantSettingsStatus[]; problems: { file: string; problems: readonly string[] }[]; generation: string } {
    const tenants = (this.#settings?.entries() ?? []).map((entry) => ({
      tenant: entry.tenant,
      file: entry.file,
      file_generation: entry.fileGeneration,
      rate_limit: entry.value.rate_limit !== undefined,
      policies: entry.value.policies === undefined ? null : [...entry.value.policies].sort(),
      loaded_at_unix: entry.loadedAtUnix,
      ...(entry.problems !== undefined ? { problems: entry.problems } : {}),
    }));
    return { tenants, problems: this.#settings?.unusable() ?? [], generation: this.generation };
  }

  reload(): TenantDirectoryReload {
    if (this.#settings === undefined) return { ok: false, changed: false, errors: ['tenants_directory: is not configured'] };
    return this.#settings.reload();
  }
}
