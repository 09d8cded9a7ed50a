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

/**
 * Parse every policy file of `dir` (sorted by file name). `policies` maps policy name to policy
 * and holds only valid, non-duplicate policies; callers that need all-or-nothing (startup,
 * reload) must treat any issue as failure. An empty directory is not an issue here.
 */
export function loadPolicyDirectory(dir: string): { policies: Map<string, Policy>; issues: PolicyIssue[] } {
  const policies = new Map<string, Policy>();
  const issues: PolicyIssue[] = [];
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => !name.startsWith('.') && POLICY_FILE.test(name)).sort();
  } catch {
    return { policies, issues: [{ file: dir, field: '(directory)', message: 'cannot read the policy directory' }] };
  }

  const origin = new Map<string, string>();
  for (const name of names) {
    const file = join(dir, name);
    let text: string;
    try {
      const stats = statSync(file);
      if (!stats.isFile()) continue;
      if (stats.size > MAX_POLICY_FILE_BYTES) {
        issues.push({ file, field: '(file)', message: `larger than ${MAX_POLICY_FILE_BYTES} bytes` });
        continue;
      }
      text = readFileSync(file, 'utf8');
    } catch {
      issues.push({ file, field: '(file)', message: 'cannot read the file' });
      continue;
    }
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

/** Line of the top-level `name:` key (the name was read, so it exists). */
function nameLine(text: string): number | undefined {
  const index = text.split(/\r?\n/).findIndex((line) => /^name\s*:/.test(line));
  return index >= 0 ? index + 1 : undefined;
}
