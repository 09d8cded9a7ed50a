// The configuration loader (decisions.md section 10, house-style rule 3): YAML file, then
// `VEIL_*` environment overrides, then CLI overrides; validated once with ajv (every problem
// listed, defaults filled), cross-field rules checked, secrets decoded into the session key
// ring, and the result deep-frozen. No global config getter: callers pass the result on.
//
// Session secret rules (documented decisions):
// - `session.secret` (one key) and `session.keyring` (rotation) are exclusive: giving both in
//   the file, nested env variables or overrides is an error, because which one wins would be a
//   guess. The one exception is VEIL_SESSION_SECRET (interface.md: it "overrides
//   session.secret"): it replaces whatever the file configured, key ring included, with a
//   single key, and a warning says the ring was ignored.
// - A single secret becomes a one-key ring whose kid is the first 8 hex of SHA-256(secret), so
//   the kid is stable across restarts and replicas without revealing the key.
// - `session.keyring_file` names a file holding the same {current_kid, keys} shape (a mounted
//   Kubernetes Secret); it excludes the other two, is read here (a bad file aborts startup) and
//   re-read on change by reload/ (a bad file then keeps the running ring).
// - Neither given, and a state store lives in SQLite: the session, digest and corpus secrets
//   come from `<storage.sqlite_path>.keys` (config/state-keys.ts), generated there once and
//   re-read on every start and by every cluster worker, so durable state keeps its meaning.
// - Neither given and a store lives in Redis (several replicas): refused, naming session.secret.
// - Neither given otherwise (memory stores only): a random secret is generated (generatedSecret
//   true) with a warning that sealed blobs do not survive a restart.
// - serverSecret is the current kid's secret; corpus keys derive from rag.corpus_secret when
//   set, else from the state-keys file when there is one, else from the session secret; the
//   revocation digest key likewise (storage.digest_secret, the file, then derived).
// - A durable revocation store with the session keys in a key ring needs storage.digest_secret
//   (or the state-keys file): a digest key derived from the ring's current kid would change at
//   the next kid switch and silently orphan every stored revocation.
import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { parseDocument } from 'yaml';
import { isKnownRegion } from '../domain/detect/phone-metadata.js';
import { KeyRing } from '../domain/seal/keyring.js';
import { keyRingFromData, readKeyRingFile } from './keyring-file.js';
import { readEnv, type EnvOverride } from './env.js';
import { MAX_BATCH_SIZE_CEILING, MIN_JWT_SECRET_BYTES } from './schema.js';
import type { StoreCapacity, VeilConfig } from './schema.js';
import { Secret, kidForSecret, parseSecret, secretFingerprint } from './secrets.js';
import { configValidator } from './validator.js';
import { ensureStateKeys, readStateKeys, StateKeysError, stateKeysPath, type StateKeys } from './state-keys.js';

export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid configuration (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = Object.freeze([...problems]);
  }
}

export interface LoadedConfig {
  readonly config: VeilConfig;
  readonly keyRing: KeyRing;
  readonly warnings: string[];
  /** True when no secret was configured and one was generated for this process (lost on exit). */
  readonly generatedSecret: boolean;
  /**
   * The state-keys file (`<storage.sqlite_path>.keys`) whose secrets this process uses for what
   * was not configured; undefined when none applies.
   */
  readonly stateKeysFile?: string | undefined;
  /** True when the session secret itself comes from that file (none was configured). */
  readonly sessionFromStateKeys?: boolean | undefined;
  /** The current session secret. */
  readonly serverSecret: Buffer;
  /**
   * Secret the RAG corpus-token keys derive from (HKDF, domain/token/corpus.ts). From
   * rag.corpus_secret (VEIL_CORPUS_SECRET) when set, so corpus tokens survive session-key
   * rotation; otherwise the current session secret, and switching current_kid then changes
   * every corpus token (re-ingest; warned when a key ring is configured).
   */
  readonly corpusSecret: Buffer;
  /**
   * Key for revocation digests (HMAC of type and normalized value). From storage.digest_secret
   * (VEIL_DIGEST_SECRET) when set; otherwise derived from the session secret, which a key
   * rotation would change, orphaning durable revocations (warned when a durable backend is used).
   */
  readonly digestSecret: Buffer;
  /** HMAC key of the durable audit chain (audit.hmac_key, VEIL_AUDIT__HMAC_KEY); kept out of config. */
  readonly auditKey?: Buffer | undefined;
}

export interface LoadOptions {
  /** YAML config file; omitted means defaults plus environment. */
  readonly file?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * CLI overrides, applied last. Keys are top-level sections holding nested objects
   * (`{server: {port: 8080}}`, deep-merged) or dotted key paths (`{'server.port': 8080}`).
   */
  readonly overrides?: Readonly<Record<string, unknown>> | undefined;
  /**
   * What to do when the state-keys file is needed and missing: `create` it (a single process,
   * or the cluster primary before it forks), or only `read` it (a cluster worker: the primary
   * created it, and a worker inventing its own keys would disagree with its siblings).
   * Default `create`.
   */
  readonly stateKeys?: 'create' | 'read' | undefined;
}

const SECRET_FORMAT = 'must be 32 bytes written as 64 hex characters or standard base64';

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/** Own-property write that cannot reach a prototype, whatever the key. */
function defineKey(target: Plain, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Deep copy of JSON-like data, so ajv's default filling never mutates the caller's objects. */
function cloneData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneData);
  if (isPlain(value)) {
    const copy: Plain = {};
    for (const key of Object.keys(value)) defineKey(copy, key, cloneData(value[key]));
    return copy;
  }
  return value;
}

/** Merge `source` into `target`: objects merge key by key, anything else replaces. */
function mergeInto(target: Plain, source: Plain): void {
  for (const key of Object.keys(source)) {
    const incoming = source[key];
    const existing = Object.hasOwn(target, key) ? target[key] : undefined;
    if (isPlain(existing) && isPlain(incoming)) mergeInto(existing, incoming);
    else defineKey(target, key, cloneData(incoming));
  }
}

/** Set `value` at `path`, creating (or replacing non-object) intermediate levels. */
function setPath(root: Plain, path: readonly string[], value: unknown): void {
  let node = root;
  for (const segment of path.slice(0, -1)) {
    const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
    if (isPlain(next)) node = next;
    else {
      const created: Plain = {};
      defineKey(node, segment, created);
      node = created;
    }
  }
  const last = path[path.length - 1]!;
  const existing = Object.hasOwn(node, last) ? node[last] : undefined;
  if (isPlain(existing) && isPlain(value)) mergeInto(existing, value);
  else defineKey(node, last, cloneData(value));
}

function getPath(root: Plain, path: readonly string[]): unknown {
  let node: unknown = root;
  for (const segment of path) {
    if (!isPlain(node) || !Object.hasOwn(node, segment)) return undefined;
    node = node[segment];
  }
  return node;
}

function deletePath(root: Plain, path: readonly string[]): void {
  const parent = getPath(root, path.slice(0, -1));
  if (isPlain(parent)) Reflect.deleteProperty(parent, path[path.length - 1]!);
}

/** Read and parse the YAML file. Problems give line and column and the YAML error code only:
 * the parser's own messages quote the source line, which may hold a secret. */
function readConfigFile(file: string, problems: string[]): Plain {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    const code = isPlain(error) && typeof error.code === 'string' ? error.code : 'read error';
    problems.push(`config file ${file}: cannot be read (${code})`);
    return {};
  }
  const document = parseDocument(source, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    for (const error of document.errors) {
      const position = error.linePos?.[0];
      const where = position === undefined ? '' : ` at line ${position.line}, column ${position.col}`;
      problems.push(`config file ${file}: YAML syntax error${where} (${error.code})`);
    }
    return {};
  }
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch {
    problems.push(`config file ${file}: YAML could not be expanded (too many aliases?)`);
    return {};
  }
  if (data === null || data === undefined) return {};
  if (!isPlain(data)) {
    problems.push(`config file ${file}: the top level must be a mapping of sections`);
    return {};
  }
  return data;
}

// ---------------------------------------------------------------------------------------------
// Schema validation

/** `/auth/api_keys/0/key` -> `auth.api_keys[0].key`. */
function keyPath(pointer: string): string {
  if (pointer === '') return '';
  let out = '';
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^[0-9]+$/.test(segment) ? `[${segment}]` : out === '' ? segment : `.${segment}`;
  }
  return out;
}

/**
 * A key name as it may appear in a problem. A key that looks like a secret (someone pasted a key
 * where a name goes) or is unreasonably long is not echoed.
 */
function safeKeyName(name: string): string {
  return name.length > 64 || parseSecret(name) !== null ? '<redacted key name>' : name;
}

function joinKey(base: string, key: string): string {
  return base === '' ? key : `${base}.${key}`;
}

/**
 * The key path and text of one ajv error; null for errors that only echo another one. ajv
 * messages name the rule (type, range, pattern), never the data value.
 */
function describeAjvError(error: ErrorObject): { key: string; text: string } | null {
  const path = keyPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'if':
      return null; // the failing `then` branch reports the real problem
    case 'additionalProperties':
      return { key: joinKey(path, safeKeyName(String(params.additionalProperty))), text: 'unknown key' };
    case 'required':
      return { key: joinKey(path, String(params.missingProperty)), text: 'is required' };
    case 'enum':
      return { key: path, text: `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}` };
    case 'propertyNames':
      return { key: joinKey(path, safeKeyName(String(params.propertyName))), text: 'invalid key name' };
    case 'pattern':
      // Inside propertyNames ajv also reports the key name's pattern failure: the
      // propertyNames error above already names the key.
      if (error.propertyName !== undefined) return null;
      return { key: path, text: error.message ?? 'is invalid' };
    default:
      return { key: path, text: error.message ?? 'is invalid' };
  }
}

/** One problem line, with the variable or override that set the key, if any. */
function problemLine(key: string, text: string, sources: ReadonlyMap<string, string>): string {
  let best: string | undefined;
  let bestLength = -1;
  for (const [path, source] of sources) {
    const covers = key === path || key.startsWith(`${path}.`) || key.startsWith(`${path}[`);
    if (covers && path.length > bestLength) {
      best = source;
      bestLength = path.length;
    }
  }
  return `${key === '' ? '(root)' : key}: ${text}${best === undefined ? '' : ` (set by ${best})`}`;
}

// ---------------------------------------------------------------------------------------------
// Cross-field rules, run on the merged data after schema validation. Each guard re-checks types
// so the rules can run even when the schema already failed, and every problem is listed.

function str(data: Plain, path: readonly string[]): string | undefined {
  const value = getPath(data, path);
  return typeof value === 'string' ? value : undefined;
}

function isSet(data: Plain, path: readonly string[]): boolean {
  return getPath(data, path) !== undefined;
}

interface SessionKeys {
  readonly keyRing: KeyRing;
  readonly serverSecret: Buffer;
  readonly generated: boolean;
}

function checkSessionKeys(data: Plain, secretFromEnv: boolean, problems: string[]): SessionKeys | 'unconfigured' | undefined {
  const secretText = getPath(data, ['session', 'secret']);
  const keyring = getPath(data, ['session', 'keyring']);
  const secretName = secretFromEnv ? 'VEIL_SESSION_SECRET' : 'session.secret';

  if (secretText !== undefined && keyring !== undefined) {
    problems.push('session.secret and session.keyring are both set: configure one (a key ring for rotation, a single secret otherwise)');
    return undefined;
  }
  const keyringFile = getPath(data, ['session', 'keyring_file']);
  if (keyringFile !== undefined && (secretText !== undefined || keyring !== undefined)) {
    problems.push('session.keyring_file: cannot be combined with session.secret or session.keyring: configure one');
    return undefined;
  }
  if (typeof keyringFile === 'string') {
    const parsed = readKeyRingFile(keyringFile);
    problems.push(...parsed.problems);
    if (parsed.ring === undefined) return undefined;
    return { keyRing: parsed.ring, serverSecret: parsed.ring.get(parsed.ring.currentKid)!, generated: false };
  }
  if (typeof secretText === 'string') {
    const secret = parseSecret(secretText);
    if (secret === null) {
      problems.push(`${secretName}: ${SECRET_FORMAT}`);
      return undefined;
    }
    return { keyRing: new KeyRing(kidForSecret(secret), [{ kid: kidForSecret(secret), key: secret }]), serverSecret: secret, generated: false };
  }
  if (secretText !== undefined) return undefined; // wrong type: the schema reported it

  if (isPlain(keyring)) {
    const parsed = keyRingFromData(keyring, 'session.keyring', false);
    problems.push(...parsed.problems);
    if (parsed.ring === undefined) return undefined;
    return { keyRing: parsed.ring, serverSecret: parsed.ring.get(parsed.ring.currentKid)!, generated: false };
  }
  if (keyring !== undefined) return undefined; // wrong type: the schema reported it

  return 'unconfigured';
}

/** A fresh per-process secret: the memory-only case, where nothing outlives the process anyway. */
function ephemeralSessionKeys(warnings: string[]): SessionKeys {
  const secret = randomBytes(32);
  const kid = kidForSecret(secret);
  warnings.push(
    `session: no secret configured; generated an ephemeral session secret (fingerprint ${secretFingerprint(secret)}). ` +
      'Sealed session_state blobs will not survive a restart and other replicas cannot open them; set VEIL_SESSION_SECRET (veil keygen prints one).',
  );
  return { keyRing: new KeyRing(kid, [{ kid, key: secret }]), serverSecret: secret, generated: true };
}

/** True when the platform session keys are a key ring (inline or file), which rotates. */
function platformRing(data: Plain): boolean {
  return isSet(data, ['session', 'keyring']) || isSet(data, ['session', 'keyring_file']);
}

/** State roles and the backend each uses (session.backend counts: a server-held session is state). */
function stateRoles(data: Plain): [string, string | undefined][] {
  return [
    ['session.backend', str(data, ['session', 'backend'])],
    ['revocation_backend', str(data, ['revocation_backend'])],
    ['replay_backend', str(data, ['replay_backend'])],
    ['idempotency.backend', str(data, ['idempotency', 'backend'])],
  ];
}

/**
 * What durable state needs of the secrets (docs/operations.md "Secrets of a durable store").
 * Redis is shared by replicas that must agree on every key, and no file can be shared between
 * hosts: without a configured session key it is refused. SQLite is one node: missing secrets
 * come from (or are created in) the state-keys file. A durable revocation store under a
 * rotating key ring needs a digest key of its own.
 */
function durableSecrets(
  data: Plain,
  sessionKeys: SessionKeys | 'unconfigured' | undefined,
  digestConfigured: boolean,
  problems: string[],
  mode: 'create' | 'read',
): { fileKeys?: StateKeys; path?: string; created?: boolean; revocations: boolean } {
  const roles = stateRoles(data);
  const revocations = ['sqlite', 'redis'].includes(str(data, ['revocation_backend']) ?? 'memory');
  const onRedis = roles.filter(([, backend]) => backend === 'redis').map(([name]) => name);
  if (sessionKeys === 'unconfigured' && onRedis.length > 0) {
    problems.push(
      `session.secret: is required when ${onRedis.join(', ')} ${onRedis.length === 1 ? 'is' : 'are'} redis: every replica must seal, open and ` +
        'digest with the same keys (VEIL_SESSION_SECRET, or session.keyring / session.keyring_file; `veil keygen` prints one)',
    );
    return { revocations };
  }
  const sqlitePath = str(data, ['storage', 'sqlite_path']);
  const onSqlite = roles.some(([, backend]) => backend === 'sqlite');
  let found: { fileKeys?: StateKeys; path?: string; created?: boolean } = {};
  // Only a valid configuration creates anything on disk.
  if (sqlitePath !== undefined && onSqlite && problems.length === 0 && sessionKeys !== undefined) {
    const path = stateKeysPath(sqlitePath);
    try {
      if (sessionKeys === 'unconfigured' && mode === 'create') {
        const ensured = ensureStateKeys(path);
        found = { fileKeys: ensured.keys, path, created: ensured.created };
      } else {
        // A configured session key: an existing file still supplies the digest and corpus keys
        // the store was written under. A cluster worker only reads what its primary created.
        const existing = readStateKeys(path);
        if (existing !== undefined) found = { fileKeys: existing, path, created: false };
        else if (sessionKeys === 'unconfigured') problems.push(`${path}: is missing (the cluster primary creates it before starting workers)`);
      }
    } catch (error) {
      if (!(error instanceof StateKeysError)) throw error;
      problems.push(`storage.sqlite_path: the keys of the database cannot be used: ${error.message}`);
    }
  }
  if (revocations && !digestConfigured && found.fileKeys === undefined && platformRing(data)) {
    problems.push(
      'storage.digest_secret: is required when revocation_backend is durable and the session keys are a key ring: ' +
        'a digest key derived from the current kid would change at the next kid switch and orphan every stored revocation (VEIL_DIGEST_SECRET)',
    );
  }
  return { ...found, revocations };
}

function checkAuth(data: Plain, problems: string[], warnings: string[]): void {
  const mode = str(data, ['auth', 'mode']) ?? 'dev';
  const jwtSecret = str(data, ['auth', 'jwt', 'secret']);
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret, 'utf8') < MIN_JWT_SECRET_BYTES) {
    problems.push(`auth.jwt.secret: must be at least ${MIN_JWT_SECRET_BYTES} bytes (UTF-8)`);
  }
  if (mode === 'jwt') {
    for (const key of ['secret', 'issuer', 'audience']) {
      if (!isSet(data, ['auth', 'jwt', key])) problems.push(`auth.jwt.${key}: is required when auth.mode is jwt`);
    }
  }
  if (mode === 'oidc') {
    for (const key of ['issuer', 'jwks_url', 'audience']) {
      if (!isSet(data, ['auth', 'oidc', key])) problems.push(`auth.oidc.${key}: is required when auth.mode is oidc`);
    }
  }
  const apiKeys = getPath(data, ['auth', 'api_keys']);
  if (Array.isArray(apiKeys)) {
    // Keyed by digest, so a key listed once in plain text and once as its key_sha256 is caught.
    const firstIndex = new Map<string, { index: number; field: string }>();
    const levels = getPath(data, ['rag', 'classification_levels']);
    for (const [index, entry] of apiKeys.entries()) {
      if (!isPlain(entry)) continue;
      if (typeof entry.access_level === 'string' && Array.isArray(levels) && !levels.includes(entry.access_level)) {
        problems.push(`auth.api_keys[${index}].access_level: must be one of rag.classification_levels`);
      }
      if (entry.key === undefined && entry.key_sha256 === undefined) {
        problems.push(`auth.api_keys[${index}].key: is required`);
        continue;
      }
      if (entry.key !== undefined && entry.key_sha256 !== undefined) {
        problems.push(`auth.api_keys[${index}]: set key or key_sha256, not both`);
        continue;
      }
      const field = typeof entry.key === 'string' ? 'key' : 'key_sha256';
      const digest = typeof entry.key === 'string' ? createHash('sha256').update(entry.key, 'utf8').digest('hex') : typeof entry.key_sha256 === 'string' ? entry.key_sha256 : undefined;
      if (digest === undefined) continue;
      const earlier = firstIndex.get(digest);
      if (earlier !== undefined) problems.push(`auth.api_keys[${index}].${field}: duplicates auth.api_keys[${earlier.index}].${earlier.field}`);
      else firstIndex.set(digest, { index, field });
    }
    if (mode === 'api_key' && apiKeys.length === 0 && !isSet(data, ['auth', 'api_keys_file']) && !isSet(data, ['auth', 'api_keys_directory'])) {
      warnings.push('auth: auth.mode is api_key but auth.api_keys is empty; every request will be rejected');
    }
  }
  // jwt and oidc callers authenticate with `Authorization: Bearer`: passing that header on
  // would hand Veil's own credential to the upstream.
  if (getPath(data, ['proxy', 'pass_through_api_key']) === true && (mode === 'jwt' || mode === 'oidc')) {
    problems.push(`proxy.pass_through_api_key: cannot be used with auth.mode ${mode} (its Authorization header is Veil's own credential)`);
  }
  if (mode !== 'dev') {
    const durable = str(data, ['audit', 'backend']) === 'file' && getPath(data, ['audit', 'strict']) === true;
    if (!durable && getPath(data, ['audit', 'allow_ephemeral']) !== true) {
      problems.push(
        'audit: a non-dev auth.mode requires a durable, strict audit trail (audit.backend file and audit.strict true), ' +
          'or an explicit waiver (audit.allow_ephemeral or VEIL_ALLOW_EPHEMERAL_AUDIT=1)',
      );
    }
  }
}

/** server.allowed_origins entries are exact origins (`https://app.example.com[:port]`): no
 * wildcard, path or trailing slash, because matching is by string equality with Origin. */
function checkOrigins(data: Plain, problems: string[]): void {
  const origins = getPath(data, ['server', 'allowed_origins']);
  if (!Array.isArray(origins)) return;
  for (const [index, origin] of origins.entries()) {
    if (typeof origin !== 'string') continue; // the schema reported it
    let exact: boolean;
    try {
      const url = new URL(origin);
      exact = (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin;
    } catch {
      exact = false;
    }
    if (!exact) problems.push(`server.allowed_origins[${index}]: must be an exact origin such as https://app.example.com (no wildcard, path or trailing slash)`);
  }
}

/**
 * A tenant's quota of a memory store must be below the store's global cap, or one tenant could
 * still fill the store for everyone. Only where that store is memory: a durable store's quota
 * has no memory cap to stay under.
 */
function checkQuotas(data: Plain, problems: string[]): void {
  const memory = (backend: string | undefined): boolean => (backend ?? 'memory') === 'memory';
  const roles: [keyof StoreCapacity, boolean][] = [
    ['revocations', memory(str(data, ['revocation_backend']))],
    ['replay_records', memory(str(data, ['replay_backend']))],
    ['idempotency_records', memory(str(data, ['idempotency', 'backend']))],
    ['idempotency_bytes', memory(str(data, ['idempotency', 'backend']))],
    ['sessions', str(data, ['session', 'backend']) === 'memory'],
    ['session_bytes', str(data, ['session', 'backend']) === 'memory'],
  ];
  for (const [name, inMemory] of roles) {
    const quota = getPath(data, ['storage', 'tenant_quotas', name]);
    const cap = getPath(data, ['storage', 'memory_limits', name]);
    if (inMemory && typeof quota === 'number' && typeof cap === 'number' && quota > cap) {
      problems.push(`storage.tenant_quotas.${name}: must not exceed storage.memory_limits.${name} (${cap}), the memory store's global cap`);
    }
  }
}

function checkDependencies(data: Plain, problems: string[]): void {
  if (str(data, ['audit', 'backend']) === 'file' && !isSet(data, ['audit', 'path'])) {
    problems.push('audit.path: is required when audit.backend is file');
  }
  // In every auth mode, dev included: a chain under a per-process key could not be verified
  // or resumed after a restart, so there is no generated fallback (docs/operations.md).
  if (str(data, ['audit', 'backend']) === 'file' && !isSet(data, ['audit', 'hmac_key'])) {
    problems.push('audit.hmac_key: is required when audit.backend is file (VEIL_AUDIT__HMAC_KEY; `veil keygen` prints one)');
  }
  const backends = stateRoles(data);
  for (const [name, backend] of backends) {
    if (backend === 'sqlite' && !isSet(data, ['storage', 'sqlite_path'])) {
      problems.push(`storage.sqlite_path: is required when ${name} is sqlite`);
    }
    if (backend === 'redis' && !isSet(data, ['session', 'redis_url'])) {
      problems.push(`session.redis_url: is required when ${name} is redis`);
    }
  }
  const region = str(data, ['detector', 'default_region']);
  if (region !== undefined && /^[A-Z]{2}$/.test(region) && !isKnownRegion(region)) {
    problems.push('detector.default_region: is not a region with a phone numbering plan (ISO 3166-1 alpha-2, e.g. US, GB, DE)');
  }
  const detectorMode = str(data, ['detector', 'mode']);
  if ((detectorMode === 'advanced' || detectorMode === 'both') && !isSet(data, ['detector', 'advanced_url'])) {
    problems.push(`detector.advanced_url: is required when detector.mode is ${detectorMode}`);
  }
  if (getPath(data, ['policy', 'watch']) === true && !isSet(data, ['policy', 'directory'])) {
    problems.push('policy.directory: is required when policy.watch is true');
  }
  // Several worker processes share nothing in memory: a revocation, a replay counter or an
  // idempotency record kept by one worker would be unknown to the others, so an explicit
  // server.workers above 1 needs every state role on sqlite or redis (fail closed at startup).
  const workers = getPath(data, ['server', 'workers']);
  if (typeof workers === 'number' && workers > 1) {
    const perProcess = backends.filter(([, backend]) => backend === 'memory').map(([name]) => name);
    if (perProcess.length > 0) {
      problems.push(`server.workers: ${workers} workers need shared state; set ${perProcess.join(', ')} to sqlite or redis (memory is per process)`);
    }
  }
  checkQuotas(data, problems);
  const batch = getPath(data, ['limits', 'max_batch_size']);
  if (typeof batch === 'number' && batch > MAX_BATCH_SIZE_CEILING) {
    problems.push(`limits.max_batch_size: must not exceed the built-in ceiling of ${MAX_BATCH_SIZE_CEILING}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Building the typed, frozen result

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Plain)[key]);
  }
  return value;
}

/** Replace credential strings with Secret wrappers and drop the session key material. */
function finalize(data: Plain): VeilConfig {
  const session = data.session as Plain;
  if (isPlain(data.storage)) Reflect.deleteProperty(data.storage, 'digest_secret');
  if (isPlain(data.rag)) Reflect.deleteProperty(data.rag, 'corpus_secret');
  if (isPlain(data.audit)) Reflect.deleteProperty(data.audit, 'hmac_key');
  Reflect.deleteProperty(session, 'secret');
  Reflect.deleteProperty(session, 'keyring');
  const auth = data.auth as Plain;
  for (const entry of auth.api_keys as Plain[]) if (typeof entry.key === 'string') entry.key = new Secret(entry.key);
  if (isPlain(auth.jwt) && typeof auth.jwt.secret === 'string') auth.jwt.secret = new Secret(auth.jwt.secret);
  const detector = data.detector as Plain;
  if (typeof detector.api_key === 'string') detector.api_key = new Secret(detector.api_key);
  const proxy = data.proxy as Plain;
  if (typeof proxy.upstream_api_key === 'string') proxy.upstream_api_key = new Secret(proxy.upstream_api_key);
  const detect = data.detect as Plain;
  // Raw detected values are returned by default only where nobody authenticates anyway.
  if (detect.include_values_default === undefined) detect.include_values_default = auth.mode === 'dev';
  return deepFreeze(data) as unknown as VeilConfig;
}

/**
 * Load, merge, validate and freeze the configuration. Throws ConfigError listing every problem
 * found (each names a key path or variable, never a value). The KeyRing is built here so a bad
 * secret aborts startup rather than the first request.
 */
export function loadConfig(options: LoadOptions): LoadedConfig {
  const problems: string[] = [];
  const warnings: string[] = [];

  const data: Plain = options.file === undefined ? {} : readConfigFile(options.file, problems);

  const env = readEnv(options.env);
  problems.push(...env.problems);
  warnings.push(...env.warnings);
  if (env.sessionSecretFromEnv && isSet(data, ['session', 'keyring'])) {
    deletePath(data, ['session', 'keyring']);
    warnings.push('session: VEIL_SESSION_SECRET is set, so session.keyring from the config file is ignored');
  }
  if (env.sessionSecretFromEnv && isSet(data, ['session', 'keyring_file'])) {
    deletePath(data, ['session', 'keyring_file']);
    warnings.push('session: VEIL_SESSION_SECRET is set, so session.keyring_file from the config file is ignored');
  }
  // Which variable or override set each key, so a schema problem can say where it came from.
  const sources = new Map<string, string>();
  const applyEnv = (override: EnvOverride): void => {
    setPath(data, override.path, override.value);
    sources.set(override.path.join('.'), override.variable);
  };
  env.overrides.forEach(applyEnv);

  for (const [key, value] of Object.entries(options.overrides ?? {})) {
    const path = key.split('.');
    if (path.some((segment) => segment === '' || segment === '__proto__')) {
      problems.push(`override ${key}: invalid key path`);
      continue;
    }
    setPath(data, path, value);
    sources.set(path.join('.'), `override ${key}`);
  }

  const validate = configValidator();
  if (!validate(data)) {
    for (const error of validate.errors ?? []) {
      const described = describeAjvError(error);
      if (described === null) continue;
      const line = problemLine(described.key, described.text, sources);
      if (!problems.includes(line)) problems.push(line);
    }
  }
  checkAuth(data, problems, warnings);
  checkOrigins(data, problems);
  checkDependencies(data, problems);
  const sessionKeys = checkSessionKeys(data, env.sessionSecretFromEnv, problems);
  const digestText = str(data, ['storage', 'digest_secret']);
  const configuredDigest = digestText === undefined ? undefined : parseSecret(digestText);
  if (digestText !== undefined && configuredDigest === null) problems.push(`storage.digest_secret: ${SECRET_FORMAT}`);
  const auditKeyText = str(data, ['audit', 'hmac_key']);
  const auditKey = auditKeyText === undefined ? undefined : parseSecret(auditKeyText);
  if (auditKeyText !== undefined && auditKey === null) problems.push(`audit.hmac_key: ${SECRET_FORMAT}`);
  const corpusText = str(data, ['rag', 'corpus_secret']);
  const configuredCorpus = corpusText === undefined ? undefined : parseSecret(corpusText);
  if (corpusText !== undefined && configuredCorpus === null) problems.push(`rag.corpus_secret: ${SECRET_FORMAT}`);
  const durable = durableSecrets(data, sessionKeys, digestText !== undefined, problems, options.stateKeys ?? 'create');
  if (corpusText === undefined && durable.fileKeys === undefined && platformRing(data)) {
    warnings.push('rag: no corpus_secret configured; corpus tokens derive from the current session key, so switching current_kid changes every corpus token (re-ingest)');
  }

  if (problems.length > 0 || sessionKeys === undefined) {
    throw new ConfigError(problems.length > 0 ? problems : ['session: key configuration is invalid']);
  }
  const fileKeys = durable.fileKeys;
  let keys: SessionKeys;
  if (sessionKeys !== 'unconfigured') keys = sessionKeys;
  else if (fileKeys !== undefined) {
    const kid = kidForSecret(fileKeys.session);
    keys = { keyRing: new KeyRing(kid, [{ kid, key: fileKeys.session }]), serverSecret: fileKeys.session, generated: false };
  } else keys = ephemeralSessionKeys(warnings);
  if (fileKeys !== undefined && durable.path !== undefined) {
    const used = [sessionKeys === 'unconfigured' ? 'session' : '', configuredDigest === undefined ? 'digest' : '', configuredCorpus === undefined ? 'corpus' : ''].filter((name) => name !== '');
    if (used.length > 0) {
      warnings.push(
        `storage: no ${used.map((name) => (name === 'session' ? 'session.secret' : name === 'digest' ? 'storage.digest_secret' : 'rag.corpus_secret')).join(', ')} configured; ` +
          `using the ${used.join(', ')} secret${used.length === 1 ? '' : 's'} kept beside the SQLite database in ${durable.path} ` +
          `(${durable.created ? 'created now' : 'created earlier'}; fingerprints ${used.map((name) => `${name} ${secretFingerprint(fileKeys[name as keyof StateKeys])}`).join(', ')}). ` +
          'Back it up with the database; configure the secrets to run several hosts.',
      );
    }
  }
  if (str(data, ['auth', 'mode']) !== 'dev' && keys.generated) {
    warnings.push('session: running a non-dev auth.mode with a generated session secret; configure one for production');
  }
  const digestSecret =
    configuredDigest ?? fileKeys?.digest ?? Buffer.from(hkdfSync('sha256', keys.serverSecret, Buffer.alloc(0), 'veil/revocation-digest/v1', 32));
  if (configuredDigest === undefined && fileKeys === undefined && durable.revocations) {
    warnings.push('storage: no digest_secret configured; revocation digests derive from the session secret, so changing that secret orphans stored revocations (the server then refuses to start)');
  }
  return {
    config: finalize(data),
    keyRing: keys.keyRing,
    warnings,
    generatedSecret: keys.generated,
    ...(fileKeys !== undefined ? { stateKeysFile: durable.path, sessionFromStateKeys: sessionKeys === 'unconfigured' } : {}),
    serverSecret: keys.serverSecret,
    digestSecret,
    corpusSecret: configuredCorpus ?? fileKeys?.corpus ?? keys.serverSecret,
    ...(auditKey !== undefined && auditKey !== null ? { auditKey } : {}),
  };
}
