// API keys as a reloadable source: the inline `auth.api_keys` plus the entries of
// `auth.api_keys_file` (a mounted Secret, re-read on change). The current list is one frozen
// array swapped by reference; the authenticator rebuilds its hashed table when the generation
// moves, so a key removed from the file stops working at the next request after the reload
// (threats.md 13). A file that fails validation keeps the running list.
//
// File format: a YAML or JSON list of entries shaped like auth.api_keys (`key`, `identity`,
// optional `tenant_id`, `scopes`, `role`, `purpose`), or a mapping `{api_keys: [...]}`.
// Problems name the entry index and field, never a key.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { dirname } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parseDocument } from 'yaml';
import { ApiKeyAuthenticator } from '../auth/api-key.js';
import type { Principal } from '../auth/principal.js';
import type { Authenticator } from '../auth/types.js';
import { CONFIG_SCHEMA, type ApiKeyConfig } from '../config/schema.js';
import { Secret } from '../config/secrets.js';
import { fileStamp, readStable } from './stamp.js';

/** An API-key file larger than this is refused unread. */
export const MAX_API_KEYS_FILE_BYTES = 1024 * 1024;

let compiled: ValidateFunction | undefined;

/** The config schema's own api_keys rule, so file entries obey exactly what inline ones do. */
function entriesValidator(): ValidateFunction {
  if (compiled === undefined) {
    const auth = CONFIG_SCHEMA.properties.auth as { properties: { api_keys: Record<string, unknown> } };
    const { default: _default, ...schema } = auth.properties.api_keys;
    compiled = new Ajv({ allErrors: true, strict: true }).compile({ ...schema, maxItems: 10_000 });
  }
  return compiled;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `/3/scopes/0` -> `[3].scopes[0]`; a key name only when it is an identifier. */
function entryPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : /^[a-z_]{1,32}$/.test(segment) ? `.${segment}` : '.<key>'))
    .join('');
}

/** Parse and validate an API-key file. Never throws; problems never contain a key. */
export function readApiKeysFile(path: string): { entries?: ApiKeyConfig[]; problems: string[] } {
  const label = `auth.api_keys_file ${path}`;
  let text: string;
  try {
    const stats = statSync(path);
    if (!stats.isFile()) return { problems: [`${label}: is not a file`] };
    if (stats.size > MAX_API_KEYS_FILE_BYTES) return { problems: [`${label}: larger than ${MAX_API_KEYS_FILE_BYTES} bytes`] };
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = isPlain(error) && typeof error.code === 'string' ? error.code : 'read error';
    return { problems: [`${label}: cannot be read (${code})`] };
  }
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) return { problems: [`${label}: YAML syntax error (${document.errors[0]!.code})`] };
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 10 });
  } catch {
    return { problems: [`${label}: YAML could not be expanded`] };
  }
  if (data === null || data === undefined) data = [];
  if (isPlain(data)) {
    const keys = Object.keys(data);
    if (keys.length !== 1 || keys[0] !== 'api_keys') return { problems: [`${label}: must be a list of entries or a mapping with the one key api_keys`] };
    data = data.api_keys ?? [];
  }
  const validate = entriesValidator();
  if (!validate(data)) {
    // ajv messages name the rule (pattern, length, enum), never the data.
    const problems = (validate.errors ?? []).map((error) => `${label}${entryPath(error.instancePath)}: ${error.message ?? 'invalid'}`);
    return { problems: [...new Set(problems)] };
  }
  const entries = (data as Record<string, unknown>[]).map((entry) => Object.freeze({ ...entry, key: new Secret(entry.key as string) }) as unknown as ApiKeyConfig);
  return { entries, problems: [] };
}

/** 16 hex over every entry (key digest, identity, tenant, scopes, role, purpose), in order. */
export function apiKeysGeneration(entries: readonly ApiKeyConfig[]): string {
  const hash = createHash('sha256').update('veil-api-keys/v1\n');
  for (const entry of entries) {
    const keyDigest = createHash('sha256').update(entry.key.reveal(), 'utf8').digest('hex');
    hash.update(JSON.stringify([keyDigest, entry.identity, entry.tenant_id ?? null, entry.scopes ?? null, entry.role ?? null, entry.purpose ?? null]));
    hash.update('\n');
  }
  return hash.digest('hex').slice(0, 16);
}

export interface ApiKeysStatus {
  readonly count: number;
  readonly generation: string;
  readonly source: 'config' | 'file' | 'config+file';
  readonly loaded_at_unix: number;
}

export interface ApiKeysReload {
  readonly reloaded: boolean;
  readonly changed: boolean;
  readonly generation: string;
  readonly errors: string[];
}

export class ApiKeySource {
  readonly file: string | undefined;
  readonly #inline: readonly ApiKeyConfig[];
  readonly #now: () => number;
  #entries: readonly ApiKeyConfig[];
  #generation: string;
  #loadedAtUnix: number;

  /** Throws (a startup configuration error) when the file is unusable at startup. */
  constructor(options: { inline: readonly ApiKeyConfig[]; file?: string | undefined; now: () => number }) {
    this.#inline = options.inline;
    this.file = options.file;
    this.#now = options.now;
    const initial = this.#read();
    if (initial.entries === undefined) throw new Error(`invalid API-key file:\n  ${initial.problems.join('\n  ')}`);
    this.#entries = initial.entries;
    this.#generation = apiKeysGeneration(initial.entries);
    this.#loadedAtUnix = Math.floor(options.now() / 1000);
  }

  /** The entries in force now: one frozen array, replaced whole by a reload. */
  current(): readonly ApiKeyConfig[] {
    return this.#entries;
  }

  get generation(): string {
    return this.#generation;
  }

  watchPaths(): string[] {
    return this.file === undefined ? [] : [dirname(this.file)];
  }

  stamp(): string {
    return this.file === undefined ? '' : fileStamp(this.file);
  }

  status(): ApiKeysStatus {
    return {
      count: this.#entries.length,
      generation: this.#generation,
      source: this.file === undefined ? 'config' : this.#inline.length > 0 ? 'config+file' : 'file',
      loaded_at_unix: this.#loadedAtUnix,
    };
  }

  #read(): { entries?: readonly ApiKeyConfig[]; problems: string[] } {
    if (this.file === undefined) return { entries: Object.freeze([...this.#inline]), problems: [] };
    const file = this.file;
    const read = readStable(() => fileStamp(file), () => readApiKeysFile(file));
    if (!read.stable) return { problems: [`auth.api_keys_file ${file}: kept changing while it was read`] };
    if (read.value.entries === undefined) return { problems: read.value.problems };
    const all = [...this.#inline, ...read.value.entries];
    // One key, one identity: a key listed twice (inline and file, or twice in the file) is refused.
    const seen = new Map<string, number>();
    const problems: string[] = [];
    for (const [index, entry] of all.entries()) {
      const digest = createHash('sha256').update(entry.key.reveal(), 'utf8').digest('hex');
      const earlier = seen.get(digest);
      if (earlier !== undefined) problems.push(`auth.api_keys_file ${file}: entry ${index - this.#inline.length} repeats the key of ${earlier < this.#inline.length ? `auth.api_keys[${earlier}]` : `entry ${earlier - this.#inline.length}`}`);
      else seen.set(digest, index);
    }
    if (problems.length > 0) return { problems };
    return { entries: Object.freeze(all), problems: [] };
  }

  reload(): ApiKeysReload {
    if (this.file === undefined) return { reloaded: false, changed: false, generation: this.#generation, errors: ['auth.api_keys_file: is not configured'] };
    const read = this.#read();
    if (read.entries === undefined) return { reloaded: false, changed: false, generation: this.#generation, errors: read.problems };
    const generation = apiKeysGeneration(read.entries);
    if (generation === this.#generation) return { reloaded: true, changed: false, generation, errors: [] };
    this.#entries = read.entries;
    this.#generation = generation;
    this.#loadedAtUnix = Math.floor(this.#now() / 1000);
    return { reloaded: true, changed: true, generation, errors: [] };
  }
}

/**
 * auth.mode api_key over a reloadable source: the auth layer's ApiKeyAuthenticator (hashing,
 * constant-time comparison against every entry) rebuilt whenever the source's generation moves.
 */
export class ReloadingApiKeyAuthenticator implements Authenticator {
  readonly mode = 'api_key' as const;
  readonly #source: ApiKeySource;
  #built: { generation: string; authenticator: ApiKeyAuthenticator };

  constructor(source: ApiKeySource) {
    this.#source = source;
    this.#built = { generation: source.generation, authenticator: new ApiKeyAuthenticator(source.current()) };
  }

  authenticate(headers: IncomingHttpHeaders): Promise<Principal> {
    if (this.#built.generation !== this.#source.generation) {
      this.#built = { generation: this.#source.generation, authenticator: new ApiKeyAuthenticator(this.#source.current()) };
    }
    return this.#built.authenticator.authenticate(headers);
  }
}
