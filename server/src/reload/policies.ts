// Policy lifecycle (interface.md 3 and 4.25): validate a candidate set without swapping, and
// reload `policy.directory` into the running set.
//
// What validate reads: policy files sent inline (`files`), or a directory INSIDE the configured
// policy.directory (`directory`, a relative path; "" or "." is the directory itself). Absolute
// paths and `..` segments are refused, and so is anything whose real path (links resolved)
// leaves policy.directory: the directory itself, and every file it would read. The admin API can
// therefore never be used to probe or parse files elsewhere on the server.
//
// A reload reads the whole directory (stable against a Kubernetes `..data` swap in the middle,
// see stamp.ts), validates every file, compiles every policy and checks the set's integrity
// (the default policy is present, nothing changed while reading). Only then is the new
// PolicyRegistry swapped in with one assignment: a request that already read
// `deps.policies.registry` keeps the old set, the next one gets the new set, nothing sees a mix.
// An invalid set, or an empty one outside dev, leaves the running set untouched. In dev an
// empty directory falls back to the built-in default policy, as a start without a directory does.
//
// Responses never echo file contents: issues name file, line and field; YAML syntax messages
// (which can quote the offending text) are replaced by a fixed text.
import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { DEFAULT_POLICY_FILE, isPolicyFileName, loadPolicyDirectory, MAX_POLICY_FILE_BYTES, parsePolicyFiles, VeilError, type Policy, type PolicyIssue } from '@veil/common';
import { builtinPolicyRegistry, defaultMarkerOf, PolicyLoadError, readDefaultMarker, registryFromPolicies, type PolicyHolder, type PolicyRegistry } from '../services/policies.js';
import { directoryStamp, readStable } from './stamp.js';

/** A problem as the admin API reports it. */
export interface PolicyIssueView {
  readonly file: string;
  readonly line?: number;
  readonly field: string;
  readonly message: string;
}

/** One difference between the running set and a candidate set. */
export interface PolicyChange {
  readonly change: 'added' | 'removed' | 'modified' | 'default';
  readonly policy: string;
  /** The candidate's policy version (added, modified). */
  readonly version?: string;
  /** The running policy version (removed, modified). */
  readonly previous_version?: string;
  /** change 'default': the running default policy's name. */
  readonly previous_default?: string;
}

export interface ValidateResult {
  readonly valid: boolean;
  readonly errors: PolicyIssueView[];
  readonly changes: PolicyChange[];
}

export interface ReloadResult {
  readonly reloaded: boolean;
  readonly changes: PolicyChange[];
  readonly errors: PolicyIssueView[];
}

/** Longest directory path the admin API accepts. */
export const MAX_DIRECTORY_LENGTH = 4096;

const POLICY_FILE = /\.ya?ml$/i;
/** What a policy directory's stamp covers: the policy files and the default-policy marker. */
const stamped = (name: string): boolean => POLICY_FILE.test(name) || name === DEFAULT_POLICY_FILE;

/** Deterministic JSON (object keys sorted) so equal policies hash equally. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** 16 hex of SHA-256 over a policy's canonical JSON: changes whenever its content does. */
export function policyHash(policy: Policy): string {
  return createHash('sha256').update(canonicalJson(policy)).digest('hex').slice(0, 16);
}

/** Identity of a whole set: names, content hashes and the default. */
export function policySetHash(registry: PolicyRegistry): string {
  const { defaultName, policies } = registry.snapshot();
  const lines = policies.map((policy) => `${policy.name}:${policyHash(policy)}`).sort();
  return createHash('sha256').update(`default:${defaultName}\n${lines.join('\n')}`).digest('hex').slice(0, 16);
}

/**
 * What a swap from `running` to `candidate` would change, in name order. With `visible` (a
 * tenant admin's allowed policies) running policies outside it are treated as absent, so the
 * preview never names a policy the caller may not see (not even as `modified`).
 */
export function diffPolicySets(running: PolicyRegistry, candidate: PolicyRegistry, visible?: ReadonlySet<string>): PolicyChange[] {
  const shown = (name: string): boolean => visible === undefined || visible.has(name);
  const before = new Map(running.snapshot().policies.filter((policy) => shown(policy.name)).map((policy) => [policy.name, policy]));
  const after = new Map(candidate.snapshot().policies.map((policy) => [policy.name, policy]));
  const changes: PolicyChange[] = [];
  for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const old = before.get(name);
    const next = after.get(name);
    if (old === undefined && next !== undefined) changes.push({ change: 'added', policy: name, version: next.version });
    else if (old !== undefined && next === undefined) changes.push({ change: 'removed', policy: name, previous_version: old.version });
    else if (old !== undefined && next !== undefined && policyHash(old) !== policyHash(next)) {
      changes.push({ change: 'modified', policy: name, version: next.version, previous_version: old.version });
    }
  }
  if (running.defaultName !== candidate.defaultName && shown(running.defaultName)) {
    changes.push({ change: 'default', policy: candidate.defaultName, previous_default: running.defaultName });
  }
  return changes;
}

/** A loader issue without anything read from the file's text. */
function issueView(issue: PolicyIssue): PolicyIssueView {
  return {
    file: issue.file,
    ...(issue.line !== undefined ? { line: issue.line } : {}),
    field: issue.field,
    // The YAML parser's messages can quote the offending source; say where, not what.
    message: issue.field === '(yaml)' ? 'YAML syntax error' : issue.message,
  };
}

/** Inline policy files the admin API accepts: a policy file name, or the default marker. */
export const INLINE_FILE_NAME = '^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,127}\\.ya?ml|default-policy\\.txt)$';
/** Most inline files one validate request may carry. */
export const MAX_INLINE_FILES = 256;

/** A validate request: exactly one of the two. */
export interface ValidateRequest {
  /** Relative to policy.directory ("" or "." is the directory itself). */
  readonly directory?: string | undefined;
  /** File name -> content. */
  readonly files?: Readonly<Record<string, string>> | undefined;
  /** A tenant admin's allowed policies: the change preview is limited to them. */
  readonly visible?: ReadonlySet<string> | undefined;
}

const OUTSIDE = 'directory: must be a relative path inside policy.directory (no absolute path, no .. segment, no link leading out of it)';

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * The real path of `relative` inside `root` (itself resolved), or a VEIL_VALIDATION_FAILED
 * naming the field. Checked on the string first (absolute, `..`, NUL, backslash separators),
 * then on the resolved path, so a link inside the directory cannot lead out of it.
 */
export function confinedDirectory(root: string, relative: string): string {
  if (relative.length > MAX_DIRECTORY_LENGTH || relative.includes('\0') || relative.includes('\\')) throw new VeilError('VEIL_VALIDATION_FAILED', OUTSIDE);
  if (relative.startsWith('/') || /^[A-Za-z]:/.test(relative)) throw new VeilError('VEIL_VALIDATION_FAILED', OUTSIDE);
  if (relative.split('/').includes('..')) throw new VeilError('VEIL_VALIDATION_FAILED', OUTSIDE);
  let realRoot: string;
  let target: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'directory: policy.directory cannot be read', 'policy.directory realpath failed');
  }
  try {
    target = realpathSync(join(realRoot, relative));
  } catch {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'directory: no such directory inside policy.directory');
  }
  if (!isInside(realRoot, target)) throw new VeilError('VEIL_VALIDATION_FAILED', OUTSIDE);
  return target;
}

/** Entries of `directory` the loader would read whose real path leaves `root`, as issues. */
function escapingEntries(root: string, directory: string): PolicyIssueView[] {
  const realRoot = realpathSync(root);
  const issues: PolicyIssueView[] = [];
  for (const name of readdirSync(directory)) {
    if (!isPolicyFileName(name) && name !== DEFAULT_POLICY_FILE) continue;
    let real: string;
    try {
      real = realpathSync(join(directory, name));
    } catch {
      continue; // a dangling link: the loader reports it as unreadable
    }
    if (!isInside(realRoot, real)) issues.push({ file: name, field: '(file)', message: 'is a link leading outside policy.directory; not read' });
  }
  return issues;
}

export interface CandidateSet {
  readonly registry?: PolicyRegistry;
  readonly errors: PolicyIssueView[];
}

export interface PolicyReloaderOptions {
  readonly holder: PolicyHolder;
  /** policy.directory; without one there is nothing to reload. */
  readonly directory?: string | undefined;
  /** policy.default. */
  readonly defaultName?: string | undefined;
  /** auth.mode dev: an empty directory means the built-in default policy. */
  readonly devMode: boolean;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
}

export class PolicyReloader {
  readonly #options: PolicyReloaderOptions;
  #generation = 1;
  #lastReloadUnix: number | undefined;
  #lastFailureUnix: number | undefined;

  constructor(options: PolicyReloaderOptions) {
    this.#options = options;
  }

  get directory(): string | undefined {
    return this.#options.directory;
  }

  /** Successful swaps since start, plus one for the set loaded at startup. */
  get generation(): number {
    return this.#generation;
  }

  /** Unix time of the last successful reload (undefined until one happens). */
  get lastReloadUnix(): number | undefined {
    return this.#lastReloadUnix;
  }

  get lastFailureUnix(): number | undefined {
    return this.#lastFailureUnix;
  }

  /** Stamp of the configured directory (for the watcher's poll). */
  stamp(): string {
    const directory = this.#options.directory;
    return directory === undefined ? '' : directoryStamp(directory, stamped);
  }

  /** Read, validate and compile `directory` into a registry, or list why it cannot be used. */
  readCandidate(directory: string): CandidateSet {
    // policy.default pins the default; only without it does default-policy.txt count.
    const useMarker = this.#options.defaultName === undefined;
    const read = readStable(
      () => directoryStamp(directory, stamped),
      () => ({ ...loadPolicyDirectory(directory), marker: useMarker ? readDefaultMarker(directory) : { issues: [] } }),
    );
    if (!read.stable) {
      return { errors: [{ file: directory, field: '(directory)', message: 'the directory kept changing while it was read; try again' }] };
    }
    const { policies, marker } = read.value;
    return this.#candidate(policies, [...read.value.issues, ...marker.issues], directory, marker.name);
  }

  /** Parsed policies and their issues into a compiled registry, or the reasons it is unusable. */
  #candidate(policies: ReadonlyMap<string, Policy>, issues: readonly PolicyIssue[], where: string, marker: string | undefined): CandidateSet {
    const nowUnix = Math.floor(this.#options.now() / 1000);
    if (issues.length > 0) return { errors: issues.map(issueView) };
    if (policies.size === 0) {
      if (this.#options.devMode) return { registry: builtinPolicyRegistry(this.#options.defaultName, nowUnix), errors: [] };
      return { errors: [{ file: where, field: '(directory)', message: 'no policy files found (an empty policy set is refused outside dev mode)' }] };
    }
    try {
      return { registry: registryFromPolicies(policies, where, this.#options.defaultName, nowUnix, marker), errors: [] };
    } catch (error) {
      if (error instanceof PolicyLoadError) return { errors: error.issues.map(issueView) };
      throw error;
    }
  }

  /**
   * Inline files (name -> content) into a registry, by exactly the rules of a directory: the
   * same parser, duplicate-name check, default marker and compilation.
   */
  readInlineCandidate(files: Readonly<Record<string, string>>): CandidateSet {
    const names = Object.keys(files).sort();
    const nameRule = new RegExp(INLINE_FILE_NAME);
    const errors: PolicyIssueView[] = [];
    for (const name of names) {
      if (!nameRule.test(name)) errors.push({ file: '(files)', field: 'files', message: 'file names must be <name>.yaml, <name>.yml or default-policy.txt' });
      else if (Buffer.byteLength(files[name]!, 'utf8') > MAX_POLICY_FILE_BYTES) errors.push({ file: name, field: '(file)', message: `larger than ${MAX_POLICY_FILE_BYTES} bytes` });
    }
    if (errors.length > 0) return { errors: [...new Map(errors.map((error) => [`${error.file}|${error.message}`, error])).values()] };
    const parsed = parsePolicyFiles(names.filter((name) => name !== DEFAULT_POLICY_FILE).map((name) => ({ file: name, text: files[name]! })));
    const markerText = files[DEFAULT_POLICY_FILE];
    const marker = this.#options.defaultName === undefined && markerText !== undefined ? defaultMarkerOf(markerText) : { issues: [] };
    return this.#candidate(parsed.policies, [...parsed.issues, ...marker.issues], '(files)', marker.name);
  }

  /**
   * POST /v1/admin/policy/validate: check inline files or a directory inside policy.directory
   * and preview the changes; never swaps. Throws VEIL_VALIDATION_FAILED for a request that
   * names no candidate or a path outside the policy directory.
   */
  validate(request: ValidateRequest): ValidateResult {
    let candidate: CandidateSet;
    if (request.files !== undefined) {
      candidate = this.readInlineCandidate(request.files);
    } else {
      const root = this.#options.directory;
      if (root === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'directory: policy.directory is not configured; send the policy files inline in files');
      const directory = confinedDirectory(root, request.directory ?? '');
      try {
        if (!statSync(directory).isDirectory()) return { valid: false, errors: [{ file: request.directory ?? '.', field: '(directory)', message: 'is not a directory' }], changes: [] };
        const escaping = escapingEntries(root, directory);
        if (escaping.length > 0) return { valid: false, errors: escaping, changes: [] };
      } catch {
        return { valid: false, errors: [{ file: request.directory ?? '.', field: '(directory)', message: 'cannot read the policy directory' }], changes: [] };
      }
      candidate = this.readCandidate(directory);
    }
    if (candidate.registry === undefined) return { valid: false, errors: candidate.errors, changes: [] };
    return { valid: true, errors: [], changes: diffPolicySets(this.#options.holder.registry, candidate.registry, request.visible) };
  }

  /**
   * Reload policy.directory. On success the new set replaces the running one in a single
   * assignment; on failure nothing changes. Synchronous from read to swap, so two reloads
   * cannot interleave.
   */
  reload(): ReloadResult {
    const directory = this.#options.directory;
    const nowUnix = Math.floor(this.#options.now() / 1000);
    // Nothing to reload is not a failed reload: the running set is exactly what it should be.
    if (directory === undefined) {
      return { reloaded: false, changes: [], errors: [{ file: '(config)', field: 'policy.directory', message: 'is not configured; nothing to reload' }] };
    }
    const candidate = this.readCandidate(directory);
    if (candidate.registry === undefined) {
      this.#lastFailureUnix = nowUnix;
      return { reloaded: false, changes: [], errors: candidate.errors };
    }
    const changes = diffPolicySets(this.#options.holder.registry, candidate.registry);
    this.#lastReloadUnix = nowUnix;
    // Nothing differs: keep the running snapshot (worker threads keep their compiled copy). A
    // default that stays the same for another reason (the marker went away) still swaps, so
    // diagnostics say truthfully where the default comes from.
    if (changes.length === 0 && candidate.registry.defaultSource === this.#options.holder.registry.defaultSource) return { reloaded: true, changes, errors: [] };
    // The swap: one reference assignment of an immutable snapshot.
    this.#options.holder.registry = candidate.registry;
    this.#generation += 1;
    return { reloaded: true, changes, errors: [] };
  }
}
