// A mounted directory holding one file per tenant (the Kubernetes operator's layout,
// @veil/common k8s/layout.ts): `<tenant resource name>.json`, each carrying its `tenant_id` and a
// `generation`. Used for the per-tenant key rings (session.keyring_directory) and tenant
// settings (tenants_directory).
//
// A reload reads the whole directory in one stable read (stamp.ts: a `..data` swap during the
// read repeats it), parses every file, and swaps one immutable map by reference. A file is
// judged on its own: an invalid file keeps the last good version it had (and the problem is
// reported), so one broken tenant never freezes or drops the others. A file that disappeared is
// dropped (the Tenant was deleted). Two files claiming the same tenant_id keep whatever that
// tenant had before (nothing, if it is new): never pick one of two at random.
//
// At startup there is no last good version, so any problem is a startup error, like a bad
// session.keyring_file. Problems name file and field, never contents (a key ring is secret).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { directoryStamp, readStable } from './stamp.js';

/** Files considered: visible `*.json` names (the kubelet's `..data` and payload dirs are hidden). */
export const TENANT_FILE_NAME = /^[^.][-._a-zA-Z0-9]*\.json$/;
/** Most files one directory may hold. */
export const MAX_TENANT_FILES = 10_000;

export type TenantFileParse<V> = { readonly ok: true; readonly tenant: string; readonly generation: number; readonly value: V } | { readonly ok: false; readonly problems: readonly string[] };

/** One tenant's loaded file. */
export interface TenantEntry<V> {
  readonly tenant: string;
  readonly file: string;
  readonly value: V;
  /** The file's own `generation` (the operator's counter). */
  readonly fileGeneration: number;
  readonly loadedAtUnix: number;
  /** Set when a newer version of the file was refused and this one stayed in force. */
  readonly problems?: readonly string[];
}

export interface TenantDirectoryReload {
  /** False when any file had a problem (the rest were applied) or the directory was unreadable. */
  readonly ok: boolean;
  readonly changed: boolean;
  readonly errors: string[];
}

export interface TenantDirectoryOptions<V> {
  /** The config key, for problem texts (`session.keyring_directory`). */
  readonly label: string;
  readonly directory: string;
  readonly maxFileBytes: number;
  /** Parse one file; `file` is its name. Never throws. */
  readonly parse: (text: string, file: string) => TenantFileParse<V>;
  /** Whether two values are the same (an unchanged file keeps its entry and load time). */
  readonly same: (a: V, b: V) => boolean;
  readonly now: () => number;
}

type FileRead<V> = { readonly file: string } & TenantFileParse<V>;

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : 'read error';
}

export class TenantDirectory<V> {
  readonly directory: string;
  readonly #options: TenantDirectoryOptions<V>;
  #entries: ReadonlyMap<string, TenantEntry<V>> = new Map();
  /** Files with no usable version at all, with why. */
  #unusable: ReadonlyMap<string, readonly string[]> = new Map();

  /** Throws (a startup configuration error) when the directory or any file is unusable. */
  constructor(options: TenantDirectoryOptions<V>) {
    this.#options = options;
    this.directory = options.directory;
    const initial = this.reload();
    if (!initial.ok) throw new Error(`invalid ${options.label}:\n  ${initial.errors.join('\n  ')}`);
  }

  /** The entry of `tenant`, or undefined. */
  get(tenant: string): TenantEntry<V> | undefined {
    return this.#entries.get(tenant);
  }

  /** Every loaded entry, in tenant order. */
  entries(): TenantEntry<V>[] {
    return [...this.#entries.values()].sort((a, b) => (a.tenant < b.tenant ? -1 : a.tenant > b.tenant ? 1 : 0));
  }

  /** Files present but without any usable version: `{file, problems}`. */
  unusable(): { file: string; problems: readonly string[] }[] {
    return [...this.#unusable].map(([file, problems]) => ({ file, problems }));
  }

  stamp(): string {
    return directoryStamp(this.directory, (name) => TENANT_FILE_NAME.test(name));
  }

  #readAll(): { files?: FileRead<V>[]; problem?: string } {
    const label = `${this.#options.label} ${this.directory}`;
    let names: string[];
    try {
      names = readdirSync(this.directory)
        .filter((name) => TENANT_FILE_NAME.test(name))
        .sort();
    } catch (error) {
      return { problem: `${label}: cannot be read (${errorCode(error)})` };
    }
    if (names.length > MAX_TENANT_FILES) return { problem: `${label}: holds more than ${MAX_TENANT_FILES} files` };
    const files: FileRead<V>[] = [];
    for (const name of names) {
      const path = join(this.directory, name);
      try {
        const stats = statSync(path);
        if (!stats.isFile()) continue;
        if (stats.size > this.#options.maxFileBytes) {
          files.push({ file: name, ok: false, problems: [`${label}: ${name}: larger than ${this.#options.maxFileBytes} bytes`] });
          continue;
        }
        const parsed = this.#options.parse(readFileSync(path, 'utf8'), name);
        files.push(parsed.ok ? { file: name, ...parsed } : { file: name, ok: false, problems: parsed.problems.map((problem) => `${label}: ${problem}`) });
      } catch (error) {
        // A name whose link dangles is a file being removed (the kubelet drops the link right
        // after the `..data` swap): it is gone, not broken.
        if (errorCode(error) === 'ENOENT') continue;
        files.push({ file: name, ok: false, problems: [`${label}: ${name}: cannot be read (${errorCode(error)})`] });
      }
    }
    return { files };
  }

  /** Re-read the directory; see the header for what is kept and what is dropped. */
  reload(): TenantDirectoryReload {
    const read = readStable(
      () => this.stamp(),
      () => this.#readAll(),
    );
    if (!read.stable) return { ok: false, changed: false, errors: [`${this.#options.label} ${this.directory}: kept changing while it was read`] };
    if (read.value.files === undefined) return { ok: false, changed: false, errors: [read.value.problem ?? `${this.#options.label}: cannot be read`] };
    const previous = this.#entries;
    const previousByFile = new Map([...previous.values()].map((entry) => [entry.file, entry]));
    const nowUnix = Math.floor(this.#options.now() / 1000);
    const errors: string[] = [];
    const unusable = new Map<string, readonly string[]>();
    // Candidates per tenant: the new version of a good file, or the kept version of a bad one.
    const candidates = new Map<string, TenantEntry<V>[]>();
    const add = (entry: TenantEntry<V>): void => {
      candidates.set(entry.tenant, [...(candidates.get(entry.tenant) ?? []), entry]);
    };
    for (const read_ of read.value.files) {
      if (read_.ok) {
        const before = previous.get(read_.tenant);
        const unchanged = before !== undefined && before.file === read_.file && before.fileGeneration === read_.generation && this.#options.same(before.value, read_.value);
        add(unchanged && before.problems === undefined ? before : { tenant: read_.tenant, file: read_.file, value: read_.value, fileGeneration: read_.generation, loadedAtUnix: unchanged ? before.loadedAtUnix : nowUnix });
        continue;
      }
      errors.push(...read_.problems);
      const kept = previousByFile.get(read_.file);
      if (kept !== undefined) add({ ...kept, problems: read_.problems });
      else unusable.set(read_.file, read_.problems);
    }
    const next = new Map<string, TenantEntry<V>>();
    for (const [tenant, list] of candidates) {
      if (list.length === 1) {
        next.set(tenant, list[0]!);
        continue;
      }
      const files = list.map((entry) => entry.file).join(', ');
      const problem = `${this.#options.label} ${this.directory}: ${files}: tenant_id: several files name the same tenant; keeping what was loaded before`;
      errors.push(problem);
      const before = previous.get(tenant);
      if (before !== undefined) next.set(tenant, { ...before, problems: [problem] });
      for (const entry of list) if (entry.file !== before?.file) unusable.set(entry.file, [problem]);
    }
    const changed = next.size !== previous.size || [...next].some(([tenant, entry]) => previous.get(tenant)?.value !== entry.value);
    this.#entries = next;
    this.#unusable = unusable;
    return { ok: errors.length === 0, changed, errors };
  }

  /** 16 hex identifying what is loaded (tenant, file, file generation, and `identity(value)`). */
  generation(identity: (value: V) => string): string {
    const hash = createHash('sha256').update(`${this.#options.label}\n`);
    for (const entry of this.entries()) hash.update(`${JSON.stringify([entry.tenant, entry.file, entry.fileGeneration, identity(entry.value)])}\n`);
    return hash.digest('hex').slice(0, 16);
  }
}
