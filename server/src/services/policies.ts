// The loaded policy set: compiled policies by name plus the default, immutable once built. A
// reload (reload/policies.ts) builds a new registry and swaps it whole; a request reads
// `deps.policies.registry` once and keeps that snapshot.
import { randomUUID } from 'node:crypto';
import { DEFAULT_POLICY, loadPolicyDirectory, VeilError, type Policy, type PolicyIssue } from '@veil/common';
import { compileCustomPatterns, type CompiledPattern } from '../domain/detect/index.js';
import { CompiledPolicy } from '../domain/policy/index.js';
import type { CustomPattern } from '../domain/types.js';

export interface LoadedPolicy {
  readonly compiled: CompiledPolicy;
  readonly patterns: readonly CompiledPattern[];
  readonly rawPatterns: readonly CustomPattern[];
}

export class PolicyRegistry {
  readonly defaultName: string;
  readonly loadedAtUnix: number;
  /** Identity of this set; worker threads cache their compiled copy by it. */
  readonly key: string;
  private readonly byName: ReadonlyMap<string, LoadedPolicy>;

  constructor(policies: ReadonlyMap<string, LoadedPolicy>, defaultName: string, loadedAtUnix: number, key: string = randomUUID()) {
    if (!policies.has(defaultName)) throw new Error(`default policy '${defaultName}' is not loaded`);
    this.byName = policies;
    this.defaultName = defaultName;
    this.loadedAtUnix = loadedAtUnix;
    this.key = key;
  }

  /** The raw policies, for rebuilding this registry on a worker thread. */
  snapshot(): { key: string; defaultName: string; policies: Policy[] } {
    return { key: this.key, defaultName: this.defaultName, policies: [...this.byName.values()].map((loaded) => loaded.compiled.policy) };
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

  /** The named policy, or the default; an unknown name is the caller's error. */
  get(name?: string): LoadedPolicy {
    const policy = this.byName.get(name ?? this.defaultName);
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
  if (issues.length > 0) throw new PolicyLoadError(issues);
  if (policies.size === 0) {
    throw new PolicyLoadError([{ file: options.directory, field: 'policy.directory', message: 'no policy files found' }]);
  }
  return registryFromPolicies(policies, options.directory, options.defaultName, options.nowUnix);
}

/** The set used without a policy directory: the built-in default policy alone. */
export function builtinPolicyRegistry(defaultName: string | undefined, nowUnix: number): PolicyRegistry {
  const loaded = new Map<string, LoadedPolicy>();
  loaded.set(DEFAULT_POLICY.name, compilePolicy(DEFAULT_POLICY, '<built-in>'));
  return new PolicyRegistry(loaded, defaultName ?? DEFAULT_POLICY.name, nowUnix);
}

/**
 * Compile parsed policies into a registry (startup and reload alike). The default is
 * `defaultName`, else `default` when present, else the first name in sort order. Throws
 * PolicyLoadError for a pattern that does not compile or a default that is not in the set.
 */
export function registryFromPolicies(policies: ReadonlyMap<string, Policy>, directory: string, defaultName: string | undefined, nowUnix: number): PolicyRegistry {
  const loaded = new Map<string, LoadedPolicy>();
  for (const [name, policy] of policies) loaded.set(name, compilePolicy(policy, name));
  const chosen = defaultName ?? (policies.has('default') ? 'default' : [...policies.keys()].sort()[0]!);
  if (!loaded.has(chosen)) {
    throw new PolicyLoadError([{ file: directory, field: 'policy.default', message: `default policy '${chosen}' not found in the directory` }]);
  }
  return new PolicyRegistry(loaded, chosen, nowUnix);
}
