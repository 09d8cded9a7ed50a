// loadPolicyDirectory: one policy per file, duplicate names reported, Kubernetes-style symlinked
// mounts followed, hidden and non-YAML entries skipped; and the shipped policies/ all validate.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadPolicyDirectory, MAX_POLICY_FILE_BYTES } from './load.js';
import { formatPolicyIssue } from './parse.js';

const policy = (name: string): string => `name: ${name}\nversion: "1"\nrules:\n  - {name: all, match: {}, action: tokenize}\n`;
const shippedDir = fileURLToPath(new URL('../../../policies/', import.meta.url));

describe('loadPolicyDirectory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'veil-policies-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads *.yaml and *.yml files, skipping other and hidden entries', () => {
    writeFileSync(join(dir, 'a.yaml'), policy('alpha'));
    writeFileSync(join(dir, 'b.yml'), policy('beta'));
    writeFileSync(join(dir, 'notes.txt'), 'not a policy');
    writeFileSync(join(dir, '.hidden.yaml'), 'garbage: [');
    mkdirSync(join(dir, 'sub.yaml'));
    const result = loadPolicyDirectory(dir);
    expect(result.issues).toEqual([]);
    expect([...result.policies.keys()]).toEqual(['alpha', 'beta']);
  });

  it('follows symlinks as a Kubernetes ConfigMap mount lays them out', () => {
    mkdirSync(join(dir, '..2024_01_01'));
    writeFileSync(join(dir, '..2024_01_01', 'p.yaml'), policy('mounted'));
    symlinkSync('..2024_01_01', join(dir, '..data'));
    symlinkSync(join('..data', 'p.yaml'), join(dir, 'p.yaml'));
    const result = loadPolicyDirectory(dir);
    expect(result.issues).toEqual([]);
    expect([...result.policies.keys()]).toEqual(['mounted']);
  });

  it('reports duplicate policy names with the second file and its name line', () => {
    writeFileSync(join(dir, 'a.yaml'), policy('same'));
    writeFileSync(join(dir, 'b.yaml'), `# comment\n${policy('same')}`);
    const result = loadPolicyDirectory(dir);
    expect([...result.policies.keys()]).toEqual(['same']);
    expect(result.issues).toEqual([
      { file: join(dir, 'b.yaml'), line: 2, field: 'name', message: `duplicate policy name (also defined in ${join(dir, 'a.yaml')})` },
    ]);
  });

  it('reports every invalid file with its own path and keeps the valid ones', () => {
    writeFileSync(join(dir, 'good.yaml'), policy('good'));
    writeFileSync(join(dir, 'bad1.yaml'), 'name: bad1\nversion: "1"\nrules: 3\n');
    writeFileSync(join(dir, 'bad2.yaml'), 'name: [\n');
    const result = loadPolicyDirectory(dir);
    expect([...result.policies.keys()]).toEqual(['good']);
    expect(result.issues.map((issue) => issue.file)).toEqual([join(dir, 'bad1.yaml'), join(dir, 'bad2.yaml')]);
    expect(formatPolicyIssue(result.issues[0]!)).toBe(`${join(dir, 'bad1.yaml')}:3: rules: must be a list`);
  });

  it('reports a duplicate name even when one of the files has other problems', () => {
    writeFileSync(join(dir, 'a.yaml'), 'name: same\nversion: 1\nrules: []\n');
    writeFileSync(join(dir, 'b.yaml'), policy('same'));
    const result = loadPolicyDirectory(dir);
    expect(result.issues.map(formatPolicyIssue)).toEqual([
      `${join(dir, 'a.yaml')}:2: version: must be a string (quote the value)`,
      `${join(dir, 'b.yaml')}:1: name: duplicate policy name (also defined in ${join(dir, 'a.yaml')})`,
    ]);
  });

  it('reports a file larger than the limit without parsing it', () => {
    writeFileSync(join(dir, 'big.yaml'), `${policy('big')}#${'x'.repeat(MAX_POLICY_FILE_BYTES)}\n`);
    expect(loadPolicyDirectory(dir).issues).toEqual([{ file: join(dir, 'big.yaml'), field: '(file)', message: `larger than ${MAX_POLICY_FILE_BYTES} bytes` }]);
  });

  it('returns an empty set for an empty directory and an issue for a missing one', () => {
    expect(loadPolicyDirectory(dir)).toEqual({ policies: new Map(), issues: [] });
    const missing = join(dir, 'missing');
    expect(loadPolicyDirectory(missing).issues).toEqual([{ file: missing, field: '(directory)', message: 'cannot read the policy directory' }]);
  });
});

describe('shipped policies', () => {
  it('every file in policies/ validates', () => {
    const result = loadPolicyDirectory(shippedDir);
    expect(result.issues.map(formatPolicyIssue)).toEqual([]);
    expect([...result.policies.keys()].sort()).toEqual(['default', 'healthcare', 'support-desk']);
  });

  it('the examples use strategies, channel rules, caller overrides, custom patterns and deny rules', () => {
    const { policies } = loadPolicyDirectory(shippedDir);
    for (const name of ['support-desk', 'healthcare']) {
      const example = policies.get(name)!;
      expect(Object.keys(example.restore_strategies ?? {}).length, name).toBeGreaterThan(0);
      expect(Object.keys(example.channel_rules ?? {}).length, name).toBeGreaterThan(0);
      expect(example.override_restore_mode?.length, name).toBeGreaterThan(0);
      expect(example.custom_patterns?.length, name).toBeGreaterThan(0);
      expect(example.rules.some((rule) => rule.action === 'deny'), name).toBe(true);
    }
  });

  it('the production default keeps credentials from being restored', () => {
    const { policies } = loadPolicyDirectory(shippedDir);
    const rules = policies.get('default')!.rules;
    for (const secret of ['password', 'private_key', 'api_key', 'jwt']) {
      const rule = rules.find((candidate) => candidate.match.entity_type === secret || candidate.match.entity_types?.includes(secret));
      expect(['none', 'masked'], secret).toContain(rule?.restore_mode);
    }
  });
});
