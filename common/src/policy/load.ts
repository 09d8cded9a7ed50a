// Loads a policy directory (decisions.md section 7): every `*.yaml` / `*.yml` file holds one
// policy, selected by its `name`, which must be unique in the directory. Follows symlinks so a
// Kubernetes ConfigMap mount (`..data` indirection) loads as written; hidden entries are skipped.
// Synchronous on purpose: it runs at startup, on reload and in `veil policy validate`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parsePolicy } from './parse.js';
import type { Policy, PolicyIssue } from './types.js';

/** Largest policy file read; anything bigger is reported, not parsed. */
export const MAX_POLICY_FILE_BYTES = 1024 * 1024;

const POLICY_FILE = /\.ya?ml$/i;

/** One policy file's text and the name issues call it by (a path, or an inline file name). */
export interface PolicyFileText {
  readonly file: string;
  readonly text: string;
}

/**
 * Parse policy files given as text, in the order given. `policies` maps policy name to policy
 * and holds only valid, non-duplicate policies; `issues` lists every problem of every file.
 * Shared by the directory loader and the admin API's inline validation, so both apply exactly
 * the same rules.
 */
export function parsePolicyFiles(files: Iterable<PolicyFileText>): { policies: Map<string, Policy>; issues: PolicyIssue[] } {
  const policies = new Map<string, Policy>();
  const issues: PolicyIssue[] = [];
  const origin = new Map<string, string>();
  for (const { file, text } of files) {
    const result = parsePolicy(text, file);
    issues.push(...result.issues);
    // A file with problems still claims its name, so a duplicate is reported in the same run.
    const policyName = result.policy?.name ?? result.name;
    if (policyName === undefined) continue;
    const previous = origin.get(policyName);
    if (previous !== undefined) {
      const line = nameLine(text);
      issues.push({ file, ...(line !== undefined ? { line } : {}), field: 'name', message: `duplicate policy name (also defined in ${previous})` });
      continue;
    }
    origin.set(policyName, file);
    if (result.policy !== undefined) policies.set(policyName, result.policy);
  }
  return { policies, issues };
}

/** Whether a directory entry is a policy file the loader reads (hidden entries never are). */
export function isPolicyFileName(name: string): boolean {
  return !name.startsWith('.') && POLICY_FILE.test(name);
}

/**
 * Parse every policy file of `dir` (sorted by file name). `policies` maps policy name to policy
 * and holds only valid, non-duplicate policies; callers that need all-or-nothing (startup,
 * reload) must treat any issue as failure. An empty directory is not an issue here.
 */
export function loadPolicyDirectory(dir: string): { policies: Map<string, Policy>; issues: PolicyIssue[] } {
  let names: string[];
  try {
    names = readdirSync(dir).filter(isPolicyFileName).sort();
  } catch {
    return { policies: new Map(), issues: [{ file: dir, field: '(directory)', message: 'cannot read the policy directory' }] };
  }
  const issues: PolicyIssue[] = [];
  const texts: PolicyFileText[] = [];
  for (const name of names) {
    const file = join(dir, name);
    try {
      const stats = statSync(file);
      if (!stats.isFile()) continue;
      if (stats.size > MAX_POLICY_FILE_BYTES) {
        issues.push({ file, field: '(file)', message: `larger than ${MAX_POLICY_FILE_BYTES} bytes` });
        continue;
      }
      texts.push({ file, text: readFileSync(file, 'utf8') });
    } catch {
      issues.push({ file, field: '(file)', message: 'cannot read the file' });
    }
  }
  const parsed = parsePolicyFiles(texts);
  return { policies: parsed.policies, issues: [...issues, ...parsed.issues] };
}

/** Line of the top-level `name:` key (the name was read, so it exists). */
function nameLine(text: string): number | undefined {
  const index = text.split(/\r?\n/).findIndex((line) => /^name\s*:/.test(line));
  return index >= 0 ? index + 1 : undefined;
}
