// The loaded policy set: compiled policies by name plus the default, immutable once built. A
// reload (reload/policies.ts) builds a new registry and swaps it whole; a request reads
// `deps.policies.registry` once and keeps that snapshot.
//
// The default policy of a directory is, in this order: `policy.default` from the config (an
// explicit pin wins), the policy named by `default-policy.txt` in the directory (the Kubernetes
// operator's marker for the TokenizationPolicy with `default: true`), a policy named `default`,
// else the first name in sort order. A marker that is malformed or names a policy the directory
// does not hold makes the set invalid (a reload keeps the running set).
//
// A tenant with an allowed-policies list (tenant settings, reload/tenant-settings.ts) gets a
// restricted view of the registry (restrictedTo): every policy it resolves, named or implied
// (the default, a continued session's policy), must be on its list, else 403 VEIL_POLICY_DENIED.
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_POLICY, DEFAULT_POLICY_FILE, loadPolicyDirectory, parseDefaultPolicyFile, VeilError, type Policy, type PolicyIssue } from '@veil/common';
import { compileCustomPatterns, type CompiledPattern } from '../domain/detect/index.js';
import { CompiledPolicy } from '../domain/policy/index.js';
import type { CustomPattern } from '../domain/types.js';

export interface LoadedPolicy {
  readonly compiled: CompiledPolicy;
  readonly patterns: readonly CompiledPattern[];
  readonly rawPatterns: readonly CustomPattern[];
}

/** Where the default policy's name came from (diagnostics). */
export type DefaultPolicySource = 'config' | 'marker' | 'rule' | 'builtin';

export interface RegistryOptions {
  /** Policy names this view may resolve; undefined: every loaded policy. */
  readonly allowed?: Iterable<string> | undefined;
  readonly defaultSource?: DefaultPolicySource;
}

/** Holds the active policy registry; a reload swaps `registry` as one immutable snapshot. */
export interface PolicyHolder {
  registry: PolicyRegistry;
}

/** Where a tenant's allowed policies are read (the reloadable tenant settings, reload/tenant-settings.ts). */
export interface TenantPolicySource {
  readonly reload: { readonly tenants?: { settingsOf(tenant: string | null): { readonly policies?: ReadonlySet<string> | undefined } | undefined } | undefined };
}

/**
 * The policy set in force now as `tenant` may use it: restricted to the tenant's allowed
 * policies (tenant settings) when it has a list, else the whole set. Read it once per request.
 */
export function policiesFor(deps: TenantPolicySource & { readonly policies: PolicyHolder }, tenant: string | null): PolicyRegistry {
  return deps.policies.registry.restrictedTo(deps.reload.tenants?.settingsOf(tenant)?.policies);
}

export class PolicyRegistry {
  readonly defaultName: string;
  readonly loadedAtUnix: number;
  /** Identity of this set; worker threads cache their compiled copy by it. */
  readonly key: string;
  readonly defaultSource: DefaultPolicySource;
  /** Names this view may resolve (a tenant's allowed policies); undefined: all. */
  readonly allowed: ReadonlySet<string> | undefined;
  private readonly byName: ReadonlyMap<string, LoadedPolicy>;

  constructor(policies: ReadonlyMap<string, LoadedPolicy>, defaultName: string, loadedAtUnix: number, key: string = randomUUID(), options: RegistryOptions = {}) {
    if (!policies.has(defaultName)) throw new Error(`default policy '${defaultName}' is not loaded`);
    this.byName = policies;
    this.defaultName = defaultName;
    this.loadedAtUnix = loadedAtUnix;
    this.key = key;
    this.defaultSource = options.defaultSource ?? 'rule';
    this.allowed = options.allowed === undefined ? undefined : new Set(options.allowed);
  }

  /**
   * The same set as a tenant with an allowed-policies list sees it (undefined: unrestricted).
   * Shares the compiled policies and the key, so nothing is recompiled.
   */
  restrictedTo(allowed: Iterable<string> | undefined): PolicyRegistry {
    if (allowed === undefined) return this;
    return new PolicyRegistry(this.byName, this.defaultName, this.loadedAtUnix, this.key, { allowed, defaultSource: this.defaultSource });
  }

  /** The raw policies, for rebuilding this registry (and its restriction) on a worker thread. */
  snapshot(): { key: string; defaultName: string; policies: Policy[]; allowed?: string[] } {
    return {
      key: this.key,
      defaultName: this.defaultName,
      policies: [...this.byName.values()].map((loaded) => loaded.compiled.policy),
      ...(this.allowed !== undefined ? { allowed: [...this.allowed] } : {}),
    };
  }

  get size(): number {
    return this.byName.size;
  }

  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** True when `name` is a loaded policy (unknown names are caller input, never recorded). */
  has(name: string): boolean {
    return this.byName.has(name);
  }

  /**
   * The named policy, or the default; an unknown name is the caller's error. In a restricted
   * view a name off the list is refused before it is looked up, so the answer does not tell a
   * tenant which other policies exist.
   */
  get(name?: string): LoadedPolicy {
    const resolved = name ?? this.defaultName;
    if (this.allowed !== undefined && !this.allowed.has(resolved)) {
      throw new VeilError('VEIL_POLICY_DENIED', name === undefined ? 'policy: the default policy is not allowed for this tenant; name an allowed policy' : 'policy: not allowed for this tenant');
    }
    const policy = this.byName.get(resolved);
    if (policy === undefined) throw new VeilError('VEIL_VALIDATION_FAILED', 'policy: unknown policy name');
    return policy;
  }
}

export class PolicyLoadError extends Error {
  readonly issues: readonly PolicyIssue[];
  constructor(issues: readonly PolicyIssue[]) {
    super(
      `policy set is invalid:\n${issues.map((issue) => `  ${issue.file}${issue.line !== undefined ? `:${issue.line}` : ''}: ${issue.field}: ${issue.message}`).join('\n')}`,
    );
    this.name = 'PolicyLoadError';
    this.issues = issues;
  }
}

export function compilePolicy(policy: Policy, file: string): LoadedPolicy {
  const rawPatterns = (policy.custom_patterns ?? []) as readonly CustomPattern[];
  let patterns: CompiledPattern[];
  try {
    patterns = compileCustomPatterns(rawPatterns, 'custom_patterns');
  } catch (error) {
    const message = error instanceof Error ? error.message : 'invalid custom pattern';
    throw new PolicyLoadError([{ file, field: 'custom_patterns', message }]);
  }
  return { compiled: new CompiledPolicy(policy), patterns, rawPatterns };
}

/**
 * Build the registry from `policy.directory` (every issue listed at once) or, without a
 * directory, from the built-in default policy.
 */
export function loadPolicyRegistry(options: { directory?: string | undefined; defaultName?: string | undefined; nowUnix: number }): PolicyRegistry {
  if (options.directory === undefined) return builtinPolicyRegistry(options.defaultName, options.nowUnix);
  const { policies, issues } = loadPolicyDirectory(options.directory);
  const marker = options.defaultName === undefined ? readDefaultMarker(options.directory) : { issues: [] };
  if (issues.length > 0 || marker.issues.length > 0) throw new PolicyLoadError([...issues, ...marker.issues]);
  if (policies.size === 0) {
    throw new PolicyLoadError([{ file: options.directory, field: 'policy.directory', message: 'no policy files found' }]);
  }
  return registryFromPolicies(policies, options.directory, options.defaultName, options.nowUnix, marker.name);
}

/**
 * `default-policy.txt` of a policy directory: the name it holds, nothing when the file is
 * absent, or an issue (malformed, unreadable). Never throws; issues never quote the file.
 */
export function readDefaultMarker(directory: string): { name?: string; issues: PolicyIssue[] } {
  const path = join(directory, DEFAULT_POLICY_FILE);
  let text: string;
  try {
    if (statSync(path).size > 4096) return { issues: [{ file: DEFAULT_POLICY_FILE, field: DEFAULT_POLICY_FILE, message: 'larger than 4096 bytes' }] };
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'read error';
    if (code === 'ENOENT') return { issues: [] };
    return { issues: [{ file: DEFAULT_POLICY_FILE, field: DEFAULT_POLICY_FILE, message: `cannot be read (${code})` }] };
  }
  return defaultMarkerOf(text);
}

/** The name a `default-policy.txt` text holds, or the issue; never quotes the text. */
export function defaultMarkerOf(text: string): { name?: string; issues: PolicyIssue[] } {
  const parsed = parseDefaultPolicyFile(text);
  if (!parsed.ok) return { issues: parsed.problems.map((problem) => ({ file: DEFAULT_POLICY_FILE, field: problem.field, message: problem.message })) };
  return { name: parsed.value, issues: [] };
}

/** The set used without a policy directory: the built-in default policy alone. */
export function builtinPolicyRegistry(defaultName: string | undefined, nowUnix: number): PolicyRegistry {
  const loaded = new Map<string, LoadedPolicy>();
  loaded.set(DEFAULT_POLICY.name, compilePolicy(DEFAULT_POLICY, '<built-in>'));
  return new PolicyRegistry(loaded, defaultName ?? DEFAULT_POLICY.name, nowUnix, undefined, { defaultSource: defaultName !== undefined ? 'config' : 'builtin' });
}

/**
 * Compile parsed policies into a registry (startup and reload alike). The default is
 * `defaultName` (policy.default), else `marker` (default-policy.txt), else `default` when
 * present, else the first name in sort order. Throws PolicyLoadError for a pattern that does not
 * compile or a default that is not in the set.
 */
export function registryFromPolicies(
  policies: ReadonlyMap<string, Policy>,
  directory: string,
  defaultName: string | undefined,
  nowUnix: number,
  marker?: string,
): PolicyRegistry {
  const loaded = new Map<string, LoadedPolicy>();
  for (const [name, policy] of policies) loaded.set(name, compilePolicy(policy, name));
  const source: DefaultPolicySource = defaultName !== undefined ? 'config' : marker !== undefined ? 'marker' : 'rule';
  const chosen = defaultName ?? marker ?? (policies.has('default') ? 'default' : [...policies.keys()].sort()[0]!);
  if (!loaded.has(chosen)) {
    const field = source === 'marker' ? DEFAULT_POLICY_FILE : 'policy.default';
    throw new PolicyLoadError([{ file: source === 'marker' ? DEFAULT_POLICY_FILE : directory, field, message: `default policy '${chosen}' not found in the directory` }]);
  }
  return new PolicyRegistry(loaded, chosen, nowUnix, undefined, { defaultSource: source });
}
