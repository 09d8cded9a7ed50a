// Policy lifecycle (interface.md 3 and 4.25): validate a directory without swapping, and reload
// `policy.directory` into the running set.
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
import { statSync } from 'node:fs';
import { isAbsolute, normalize } from 'node:path';
import { DEFAULT_POLICY_FILE, loadPolicyDirectory, VeilError, type Policy, type PolicyIssue } from '@veil/common';
import type { PolicyHolder } from '../deps.js';
import { builtinPolicyRegistry, PolicyLoadError, readDefaultMarker, registryFromPolicies, type PolicyRegistry } from '../services/policies.js';
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

/** What a swap from `running` to `candidate` would change, in name order. */
export function diffPolicySets(running: PolicyRegistry, candidate: PolicyRegistry): PolicyChange[] {
  const before = new Map(running.snapshot().policies.map((policy) => [policy.name, policy]));
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
  if (running.defaultName !== candidate.defaultName) {
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

/**
 * The directory an admin request names, checked before anything is read: an absolute,
 * normalized path (no `.`/`..` segments, no NUL), which must be a directory.
 */
export function checkedDirectory(directory: string): string {
  if (directory.length === 0 || directory.length > MAX_DIRECTORY_LENGTH || directory.includes('\0')) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'directory: must be an absolute path');
  }
  const trimmed = directory.length > 1 ? directory.replace(/\/+$/, '') : directory;
  if (!isAbsolute(trimmed) || normalize(trimmed) !== trimmed) {
    throw new VeilError('VEIL_VALIDATION_FAILED', 'directory: must be an absolute, normalized path (no . or .. segments)');
  }
  return trimmed;
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
    const nowUnix = Math.floor(this.#options.now() / 1000);
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
    const issues = [...read.value.issues, ...marker.issues];
    if (issues.length > 0) return { errors: issues.map(issueView) };
    if (policies.size === 0) {
      if (this.#options.devMode) return { registry: builtinPolicyRegistry(this.#options.defaultName, nowUnix), errors: [] };
      return { errors: [{ file: directory, field: '(directory)', message: 'no policy files found (an empty policy set is refused outside dev mode)' }] };
    }
    try {
      return { registry: registryFromPolicies(policies, directory, this.#options.defaultName, nowUnix, marker.name), errors: [] };
    } catch (error) {
      if (error instanceof PolicyLoadError) return { errors: error.issues.map(issueView) };
      throw error;
    }
  }

  /** POST /v1/admin/policy/validate: check a directory and preview the changes; never swaps. */
  validate(directory: string): ValidateResult {
    const checked = checkedDirectory(directory);
    try {
      if (!statSync(checked).isDirectory()) {
        return { valid: false, errors: [{ file: checked, field: '(directory)', message: 'is not a directory' }], changes: [] };
      }
    } catch {
      return { valid: false, errors: [{ file: checked, field: '(directory)', message: 'cannot read the policy directory' }], changes: [] };
    }
    const candidate = this.readCandidate(checked);
    if (candidate.registry === undefined) return { valid: false, errors: candidate.errors, changes: [] };
    return { valid: true, errors: [], changes: diffPolicySets(this.#options.holder.registry, candidate.registry) };
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
