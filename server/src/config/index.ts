// Configuration building block: load, validate and freeze the server configuration, plus the
// secret helpers `veil keygen` and the logs use.
export { loadConfig, ConfigError } from './load.js';
export type { LoadedConfig, LoadOptions } from './load.js';
export { keygen, secretFingerprint, parseSecret, kidForSecret, Secret, SECRET_BYTES } from './secrets.js';
export { ENV_ALIASES, ENV_CONFIG_FILE } from './env.js';
export * from './schema.js';

import type { VeilConfig } from './schema.js';

/**
 * The sections `K` of the configuration, as a route, plugin or service declares it needs them:
 * the composition root passes its dependencies, and the type admits only these sections.
 */
export interface ConfigSlice<K extends keyof VeilConfig> {
  readonly config: Pick<VeilConfig, K>;
}
