// API keys as a reloadable source: the inline `auth.api_keys` plus the entries of
// `auth.api_keys_file` (a mounted Secret, re-read on change). The current list is one frozen
// array swapped by reference; the authenticator rebuilds its hashed table when the generation
// moves, so a key removed from the file stops working at the next request after the reload
// (threats.md 13). A file that fails validation keeps the running list.
//
// File format: a YAML or JSON list of entries shaped like auth.api_keys (`key` or `key_sha256`,
// `identity`, optional `tenant_id`, `scopes`, `role`, `purpose`, `access_level`), or a mapping
// `{api_keys: [...]}`. An access_level outside rag.classification_levels refuses the list.
// `auth.api_keys_directory` adds the Kubernetes operator's per-tenant files (digests only; see
// api-key-directory.ts). Problems name the entry index and field, never a key.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { dirname } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parseDocument } from 'yaml';
import { ApiKeyAuthenticator, apiKeyEntryDigest } from '../auth/api-key.js';
import type { Principal } from '../auth/principal.js';
import type { Authenticator } from '../auth/types.js';
import { CONFIG_SCHEMA, type ApiKeyConfig } from '../config/schema.js';
import { Secret } from '../config/secrets.js';
import { API_KEY_FILE_NAME, readApiKeyDirectory } from './api-key-directory.js';
import { directoryStamp, fileStamp, readStable } from './stamp.js';

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
  const exactlyOne = (data as Record<string, unknown>[]).flatMap((entry, index) =>
    entry.key === undefined && entry.key_sha256 === undefined
      ? [`${label}[${index}].key: is required`]
      : entry.key !== undefined && entry.key_sha256 !== undefined
        ? [`${label}[${index}]: set key or key_sha256, not both`]
        : [],
  );
  if (exactlyOne.length > 0) return { problems: exactlyOne };
  // A key is wrapped so it never prints; an entry may instead name its key by `key_sha256`.
  const entries = (data as Record<string, unknown>[]).map(
    (entry) => Object.freeze(typeof entry.key === 'string' ? { ...entry, key: new Secret(entry.key) } : { ...entry }) as unknown as ApiKeyConfig,
  );
  return { entries, problems: [] };
}

/** 16 hex over every entry (key digest, identity, tenant, scopes, role, purpose, access level), in order. */
export function apiKeysGeneration(entries: readonly ApiKeyConfig[]): string {
  const hash = createHash('sha256').update('veil-api-keys/v1\n');
  for (const entry of entries) {
    const keyDigest = apiKeyEntryDigest(entry).toString('hex');
    hash.update(JSON.stringify([keyDigest, entry.identity, entry.tenant_id ?? null, entry.scopes ?? null, entry.role ?? null, entry.purpose ?? null, entry.access_level ?? null]));
    hash.update('\n');
  }
  return hash.digest('hex').slice(0, 16);
}

export interface ApiKeysStatus {
  readonly count: number;
  readonly generation: string;
  /** Where entries come from: `config`, `file`, `directory`, joined with `+`. */
  readonly source: string;
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
  /** auth.api_keys_directory. */
  readonly directory: string | undefined;
  readonly #inline: readonly ApiKeyConfig[];
  /** rag.classification_levels: the labels an entry's access_level may name. */
  readonly #accessLevels: ReadonlySet<string> | undefined;
  readonly #now: () => number;
  #entries: readonly ApiKeyConfig[];
  #generation: string;
  #loadedAtUnix: number;

  /** Throws (a startup configuration error) when the file is unusable at startup. */
  constructor(options: {
    inline: readonly ApiKeyConfig[];
    file?: string | undefined;
    directory?: string | undefined;
    /** rag.classification_levels; undefined skips the access_level check (tests). */
    accessLevels?: readonly string[] | undefined;
    now: () => number;
  }) {
    this.#inline = options.inline;
    this.#accessLevels = options.accessLevels === undefined ? undefined : new Set(options.accessLevels);
    this.file = options.file;
    this.directory = options.directory;
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

  /** True when a file or directory is configured (something to watch and reload). */
  get reloadable(): boolean {
    return this.file !== undefined || this.directory !== undefined;
  }

  watchPaths(): string[] {
    return [...(this.file === undefined ? [] : [dirname(this.file)]), ...(this.directory === undefined ? [] : [this.directory])];
  }

  stamp(): string {
    const file = this.file === undefined ? '' : fileStamp(this.file);
    return this.directory === undefined ? file : `${file}\n${directoryStamp(this.directory, (name) => API_KEY_FILE_NAME.test(name))}`;
  }

  status(): ApiKeysStatus {
    const parts = [
      ...(this.#inline.length > 0 || !this.reloadable ? ['config'] : []),
      ...(this.file !== undefined ? ['file'] : []),
      ...(this.directory !== undefined ? ['directory'] : []),
    ];
    return { count: this.#entries.length, generation: this.#generation, source: parts.join('+'), loaded_at_unix: this.#loadedAtUnix };
  }

  #read(): { entries?: readonly ApiKeyConfig[]; problems: string[] } {
    if (!this.reloadable) return { entries: Object.freeze([...this.#inline]), problems: [] };
    const file = this.file;
    const directory = this.directory;
    // One stable read of both: a `..data` swap in either during the read repeats it.
    const read = readStable(
      () => this.stamp(),
      () => ({
        file: file === undefined ? { entries: [], problems: [] } : readApiKeysFile(file),
        directory: directory === undefined ? { entries: [], origins: [], problems: [] } : readApiKeyDirectory(directory),
      }),
    );
    if (!read.stable) return { problems: [`${[file, directory].filter((path) => path !== undefined).join(', ')}: kept changing while being read`] };
    const fromFile = read.value.file.entries;
    const fromDirectory = read.value.directory.entries;
    if (fromFile === undefined || fromDirectory === undefined) return { problems: [...read.value.file.problems, ...read.value.directory.problems] };
    const all = [...this.#inline, ...fromFile, ...fromDirectory];
    const where = (index: number): string => {
      if (index < this.#inline.length) return `auth.api_keys[${index}]`;
      const inFile = index - this.#inline.length;
      if (inFile < fromFile.length) return `auth.api_keys_file ${file ?? ''}: entry ${inFile}`;
      return `auth.api_keys_directory ${directory ?? ''}: ${read.value.directory.origins?.[inFile - fromFile.length] ?? ''}`;
    };
    // One key, one identity: a key listed twice (inline, file or directory) is refused.
    const seen = new Map<string, number>();
    const problems: string[] = [];
    for (const [index, entry] of all.entries()) {
      if (entry.access_level !== undefined && this.#accessLevels !== undefined && !this.#accessLevels.has(entry.access_level)) {
        problems.push(`${where(index)}: access_level: must be one of rag.classification_levels`);
      }
      const digest = apiKeyEntryDigest(entry).toString('hex');
      const earlier = seen.get(digest);
      if (earlier !== undefined) problems.push(`${where(index)} repeats the key of ${where(earlier)}`);
      else seen.set(digest, index);
    }
    if (problems.length > 0) return { problems };
    return { entries: Object.freeze(all), problems: [] };
  }

  reload(): ApiKeysReload {
    if (!this.reloadable) return { reloaded: false, changed: false, generation: this.#generation, errors: ['auth.api_keys_file: is not configured'] };
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
    return this.#current().authenticate(headers);
  }

  authenticateNow(headers: IncomingHttpHeaders): Principal {
    return this.#current().authenticateNow(headers);
  }

  /** The authenticator of the key set as last reloaded. */
  #current(): ApiKeyAuthenticator {
    if (this.#built.generation !== this.#source.generation) {
      this.#built = { generation: this.#source.generation, authenticator: new ApiKeyAuthenticator(this.#source.current()) };
    }
    return this.#built.authenticator;
  }
}
