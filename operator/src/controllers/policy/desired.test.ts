// The policy directory plan, table-tested: valid policies are published (and parse back with the
// server's parser), an invalid one is never published and its last good file stays, conditions
// name the failing field and never a value, the default marker is stable, deleted policies
// leave the directory, and a repeated plan changes nothing.
import { describe, expect, it } from 'vitest';
import { contentHash, DEFAULT_POLICY_FILE, loadPolicyDirectory, parsePolicy, type Policy, type TokenizationPolicy } from '@veil/common';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planPolicyDirectory, validatePolicyResource } from './desired.js';

const NOW = Date.UTC(2025, 0, 1);

function policy(name: string, overrides: Partial<Policy> = {}): Policy {
  return { name, version: '1.0.0', rules: [{ name: 'catch-all', match: {}, action: 'tokenize', restore_mode: 'full' }], ...overrides };
}

function resource(name: string, spec: Partial<TokenizationPolicy['spec']> & { policy?: unknown } = {}, extra: Partial<TokenizationPolicy['metadata']> = {}): TokenizationPolicy {
  return {
    apiVersion: 'veil.dev/v1alpha1',
    kind: 'TokenizationPolicy',
    metadata: { name, namespace: 'veil', generation: 3, ...extra },
    spec: { policy: policy(name), ...spec },
  };
}

const plan = (policies: TokenizationPolicy[], current?: Record<string, string>) => planPolicyDirectory({ namespace: 'veil', configMapName: 'veil-policies', policies, current, nowMs: NOW });

const condition = (status: { conditions?: readonly { type: string; status: string; reason: string; message: string }[] } | undefined, type: string) => status?.conditions?.find((entry) => entry.type === type);

describe('planPolicyDirectory', () => {
  it('publishes valid policies, one file each, that the server loads as they were declared', () => {
    const result = plan([resource('support'), resource('billing', { default: true })]);
    expect(Object.keys(result.files).sort()).toEqual(['billing.yaml', DEFAULT_POLICY_FILE, 'support.yaml']);
    expect(result.files[DEFAULT_POLICY_FILE]).toBe('billing\n');
    const parsed = parsePolicy(result.files['support.yaml']!, 'support.yaml');
    expect(parsed.issues).toEqual([]);
    expect(parsed.policy).toEqual(policy('support'));
    const dir = mkdtempSync(join(tmpdir(), 'veil-policies-'));
    for (const [file, content] of Object.entries(result.files)) writeFileSync(join(dir, file), content);
    const loaded = loadPolicyDirectory(dir);
    expect(loaded.issues).toEqual([]);
    expect([...loaded.policies.keys()].sort()).toEqual(['billing', 'support']);
    const status = result.statuses.get('support')!;
    expect(status.observedGeneration).toBe(3);
    expect(status.policyVersion).toBe(contentHash(result.files['support.yaml']!));
    expect(condition(status, 'Valid')).toMatchObject({ status: 'True', reason: 'Valid' });
    expect(condition(status, 'Published')).toMatchObject({ status: 'True', reason: 'Published', message: 'published as support.yaml in ConfigMap veil-policies' });
  });

  it('never publishes an invalid policy; the last good file stays live and the conditions name the field', () => {
    const good = plan([resource('support')]);
    const secretLooking = 'sk_live_SECRETVALUE123';
    const broken = resource('support', { policy: policy('support', { rules: [{ name: 'r', match: { entity_type: 'email' }, action: 'tokenize', restore_mode: secretLooking }] } as unknown as Partial<Policy>) });
    const result = plan([broken], good.files);
    expect(result.files['support.yaml']).toBe(good.files['support.yaml']);
    const status = result.statuses.get('support')!;
    expect(status.policyVersion).toBe(good.statuses.get('support')!.policyVersion);
    const valid = condition(status, 'Valid')!;
    expect(valid).toMatchObject({ status: 'False', reason: 'Invalid' });
    expect(valid.message).toContain('spec.policy.rules[0].restore_mode');
    expect(JSON.stringify(status)).not.toContain(secretLooking);
    expect(condition(status, 'Published')).toMatchObject({ status: 'False', reason: 'LastValidVersionLive' });
    expect(result.events).toEqual([expect.objectContaining({ policy: 'support', type: 'Warning', reason: 'InvalidPolicy' })]);
  });

  it('an invalid policy that was never valid is absent, and says so', () => {
    const result = plan([resource('fresh', { policy: policy('fresh', { rules: [{ name: 'r', match: {}, action: 'explode' }] } as unknown as Partial<Policy>) })]);
    expect(result.files).toEqual({});
    expect(condition(result.statuses.get('fresh'), 'Published')).toMatchObject({ status: 'False', reason: 'NeverPublished' });
    expect(result.statuses.get('fresh')!.policyVersion).toBeUndefined();
  });

  const problems: { name: string; resource: TokenizationPolicy; field: string }[] = [
    { name: 'policy name differs from the resource name', resource: resource('a', { policy: policy('b') }), field: 'spec.policy.name' },
    { name: 'resource name cannot name a policy file', resource: resource('a.b', { policy: policy('a.b') }), field: 'metadata.name' },
    { name: 'unknown action', resource: resource('a', { policy: policy('a', { rules: [{ name: 'r', match: {}, action: 'explode' }] } as unknown as Partial<Policy>) }), field: 'spec.policy.rules[0].action' },
    {
      name: 'restore strategy that does not exist',
      resource: resource('a', { policy: policy('a', { rules: [{ name: 'r', match: {}, action: 'tokenize', restore_mode: 'partial', restore_strategy: 'nope' }] } as unknown as Partial<Policy>) }),
      field: 'spec.policy.rules[0].restore_strategy',
    },
    { name: 'missing spec.policy', resource: { ...resource('a'), spec: {} as TokenizationPolicy['spec'] }, field: 'spec.policy' },
  ];
  for (const testCase of problems) {
    it(`names the field: ${testCase.name}`, () => {
      const found = validatePolicyResource(testCase.resource);
      expect(found.some((problem) => problem.startsWith(`${testCase.field}:`))).toBe(true);
    });
  }

  it('keeps the current default when a second policy is marked default, and says so', () => {
    const first = plan([resource('a', { default: true }), resource('b')]);
    const second = plan([resource('a', { default: true }), resource('b', { default: true })], first.files);
    expect(second.files[DEFAULT_POLICY_FILE]).toBe('a\n');
    expect(condition(second.statuses.get('b'), 'Published')!.message).toContain('not the default: a is also marked default');
    const fresh = plan([resource('b', { default: true }), resource('a', { default: true })]);
    expect(fresh.files[DEFAULT_POLICY_FILE]).toBe('a\n');
  });

  it('drops the files of deleted and deleting policies', () => {
    const before = plan([resource('a'), resource('b')]);
    const after = plan([resource('a', {}, { deletionTimestamp: '2025-01-01T00:00:00Z' })], before.files);
    expect(after.files).toEqual({});
    expect(after.statuses.size).toBe(0);
  });

  it('is stable: planning from its own output changes nothing, conditions keep their times', () => {
    const first = plan([resource('a')]);
    const withStatus = { ...resource('a'), status: first.statuses.get('a')! };
    const second = planPolicyDirectory({ namespace: 'veil', configMapName: 'veil-policies', policies: [withStatus], current: first.files, nowMs: NOW + 60_000 });
    expect(second.files).toEqual(first.files);
    expect(second.contentHash).toBe(first.contentHash);
    expect(second.statuses.get('a')).toEqual(first.statuses.get('a'));
    expect(second.events).toEqual([]);
  });

  it('refuses a directory over 1 MiB and keeps the previous one', () => {
    // Each policy is valid on its own (about 600 KB of rules); two do not fit in one ConfigMap.
    const rules = Array.from({ length: 550 }, (_, index) => ({ name: `rule-${index}`, match: {}, action: 'tokenize', reason: 'r'.repeat(1000) }));
    const before = plan([resource('a')]);
    const result = plan([resource('a', { policy: policy('a', { rules } as unknown as Partial<Policy>) }), resource('b', { policy: policy('b', { rules } as unknown as Partial<Policy>) })], before.files);
    expect(result.files).toEqual(before.files);
    expect(condition(result.statuses.get('b'), 'Published')).toMatchObject({ status: 'False', reason: 'DirectoryTooLarge' });
  });
});
