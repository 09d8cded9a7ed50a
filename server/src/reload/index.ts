// Hot reload of policies, the session key ring and API keys (see manager.ts), built from the
// configuration in one call so main.ts stays process wiring only.
import type { LoadedConfig } from '../config/index.js';
import type { PolicyHolder } from '../services/policies.js';
import { ApiKeySource } from './api-keys.js';
import { KeyRingSource } from './keyring.js';
import { ReloadManager } from './manager.js';
import { PolicyReloader, policySetHash } from './policies.js';
import { TenantKeyRingSource } from './tenant-keyrings.js';
import { TenantSettingsSource } from './tenant-settings.js';
import type { Timers, WatchFunction } from './watcher.js';

export { ApiKeySource, ReloadingApiKeyAuthenticator, readApiKeysFile } from './api-keys.js';
export { KeyRingSource, ringGeneration, type KeyRingStatus } from './keyring.js';
export { ReloadManager, type ReloadEvent, type ReloadOutcome, type ReloadSourceName, type ReloadTrigger } from './manager.js';
export { confinedDirectory, diffPolicySets, policyHash, policySetHash, PolicyReloader, type PolicyChange, type PolicyIssueView } from './policies.js';
export { ChangeWatcher, REAL_TIMERS, type Timers, type WatchFunction } from './watcher.js';
export { TenantKeyRingSource, type TenantKeyRingStatus } from './tenant-keyrings.js';
export { TenantSettingsSource, type TenantSettings, type TenantSettingsStatus } from './tenant-settings.js';

export interface ReloadWiring {
  readonly loaded: LoadedConfig;
  readonly holder: PolicyHolder;
  readonly now: () => number;
  readonly timers?: Timers;
  readonly watch?: WatchFunction;
  readonly pollMs?: number;
}

/** Throws (startup error) when an API-key file, a tenant key ring or a tenant settings file cannot be used. */
export function createReloadManager(wiring: ReloadWiring): ReloadManager {
  const config = wiring.loaded.config;
  const keyRingFile = config.session.keyring_file;
  return new ReloadManager({
    policies: new PolicyReloader({
      holder: wiring.holder,
      directory: config.policy.directory,
      defaultName: config.policy.default,
      devMode: config.auth.mode === 'dev',
      now: wiring.now,
    }),
    keyRing: new KeyRingSource({
      ring: wiring.loaded.keyRing,
      origin: keyRingFile !== undefined ? 'file' : wiring.loaded.generatedSecret ? 'generated' : wiring.loaded.sessionFromStateKeys === true ? 'state_keys' : 'config',
      file: keyRingFile,
      now: wiring.now,
    }),
    ...(config.session.keyring_directory !== undefined ? { tenantKeyRings: new TenantKeyRingSource({ directory: config.session.keyring_directory, now: wiring.now }) } : {}),
    apiKeys: new ApiKeySource({
      inline: config.auth.api_keys,
      file: config.auth.api_keys_file,
      directory: config.auth.api_keys_directory,
      accessLevels: config.rag.classification_levels,
      now: wiring.now,
    }),
    ...(config.tenants_directory !== undefined ? { tenants: new TenantSettingsSource({ directory: config.tenants_directory, now: wiring.now }) } : {}),
    watchPolicies: config.policy.watch,
    debounceMs: config.policy.watch_debounce_ms,
    policySetHash: () => policySetHash(wiring.holder.registry),
    now: wiring.now,
    ...(wiring.timers !== undefined ? { timers: wiring.timers } : {}),
    ...(wiring.watch !== undefined ? { watch: wiring.watch } : {}),
    ...(wiring.pollMs !== undefined ? { pollMs: wiring.pollMs } : {}),
  });
}
