// validateAgainstCrd on the Tenant and TokenizationPolicy CRDs: typed samples (so the TS types
// and the CRD schema agree), each invariant the API server enforces, and update-time rules.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CRD_FILES } from './crds.js';
import type { Tenant, TokenizationPolicy } from './types.js';
import { compileCrd, validateAgainstCrd } from './validate.js';

const repoRoot = new URL('../../../', import.meta.url);
const tenantCrd = readFileSync(new URL(CRD_FILES.Tenant[0]!, repoRoot), 'utf8');
const policyCrd = readFileSync(new URL(CRD_FILES.TokenizationPolicy[0]!, repoRoot), 'utf8');

const tenant: Tenant = {
  apiVersion: 'veil.dev/v1alpha1',
  kind: 'Tenant',
  metadata: { name: 'acme', namespace: 'veil' },
  spec: {
    tenantId: 'acme:prod',
    apiKeys: [
      { identity: 'acme-frontend', secretRef: { name: 'acme-keys', key: 'frontend' }, scopes: ['transform', 'rehydrate'], role: 'agent', purpose: 'support' },
      { identity: 'acme-audit', secretRef: { name: 'acme-keys', key: 'audit' } },
    ],
    rateLimit: { requestsPerSecond: 50, burstSize: 100 },
    policies: ['support-desk'],
    sessionKeys: { rotationPeriod: '720h', rotateAt: '2026-11-22T10:00:00Z' },
  },
  status: {
    observedGeneration: 2,
    currentKid: 'k-2',
    keyRingGeneration: 4,
    keys: [
      { kid: 'k-1', created: '2026-10-01T00:00:00Z', phase: 'Retiring' },
      { kid: 'k-2', created: '2026-11-01T00:00:00Z', phase: 'Current' },
    ],
    rotation: { phase: 'Retiring', reason: 'Scheduled', newKid: 'k-2', oldKid: 'k-1', startedAt: '2026-11-01T00:00:00Z', retireAfter: '2026-11-01T02:00:00Z', targetGeneration: 4 },
    conditions: [{ type: 'Ready', status: 'True', observedGeneration: 2, lastTransitionTime: '2026-11-01T00:00:00Z', reason: 'Reconciled', message: 'key ring published' }],
  },
};

const policy: TokenizationPolicy = {
  apiVersion: 'veil.dev/v1alpha1',
  kind: 'TokenizationPolicy',
  metadata: { name: 'support-desk' },
  spec: { default: true, policy: { name: 'support-desk', version: '1', rules: [{ name: 'all', match: {}, action: 'tokenize' }] } },
  status: { observedGeneration: 1, policyVersion: `sha256:${'0'.repeat(64)}`, conditions: [{ type: 'Valid', status: 'False', lastTransitionTime: '2026-11-01T00:00:00Z', reason: 'SchemaInvalid', message: 'rules[0].action: must be one of ...' }] },
};

/** A copy of `value` with `edit` applied to a deep clone. */
function edited<T>(value: T, edit: (copy: any) => void): T {
  const copy = structuredClone(value);
  edit(copy);
  return copy;
}

function errorsOf(crd: string, object: unknown, oldObject?: unknown): string[] {
  return validateAgainstCrd(crd, object, oldObject === undefined ? {} : { oldObject }).errors.map((error) => `${error.path}: ${error.message}`);
}

describe('Tenant CRD', () => {
  it('accepts a full typed sample, spec and status', () => {
    expect(errorsOf(tenantCrd, tenant)).toEqual([]);
  });

  it.each([
    ['tenantId with a space', (t: any) => (t.spec.tenantId = 'acme prod'), 'spec.tenantId'],
    ['missing tenantId', (t: any) => delete t.spec.tenantId, 'spec.tenantId: Required value'],
    ['duplicate key identity', (t: any) => (t.spec.apiKeys[1].identity = 'acme-frontend'), 'spec.apiKeys: Duplicate value'],
    ['unknown scope', (t: any) => (t.spec.apiKeys[0].scopes = ['root']), 'spec.apiKeys[0].scopes[0]: Unsupported value'],
    ['duplicate scope', (t: any) => (t.spec.apiKeys[0].scopes = ['admin', 'admin']), 'spec.apiKeys[0].scopes: Duplicate value'],
    ['secretRef without key', (t: any) => delete t.spec.apiKeys[0].secretRef.key, 'spec.apiKeys[0].secretRef.key: Required value'],
    ['zero rate', (t: any) => (t.spec.rateLimit.requestsPerSecond = 0), 'spec.rateLimit.requestsPerSecond'],
    ['empty rate limit', (t: any) => (t.spec.rateLimit = {}), 'spec.rateLimit'],
    ['rotation period in days', (t: any) => (t.spec.sessionKeys.rotationPeriod = '30d'), 'spec.sessionKeys.rotationPeriod'],
    ['rotation period below 1h', (t: any) => (t.spec.sessionKeys.rotationPeriod = '30m'), 'spec.sessionKeys.rotationPeriod: rotationPeriod must be at least 1h'],
    ['rotateAt not a date-time', (t: any) => (t.spec.sessionKeys.rotateAt = 'now'), 'spec.sessionKeys.rotateAt'],
    ['unknown spec field (strict field validation)', (t: any) => (t.spec.sessionSecret = 'x'), 'spec.sessionSecret: unknown field'],
    ['unknown rotation phase', (t: any) => (t.status.rotation.phase = 'Done'), 'status.rotation.phase: Unsupported value'],
    ['duplicate key status', (t: any) => (t.status.keys[1].kid = 'k-1'), 'status.keys: Duplicate value'],
    ['condition without reason', (t: any) => delete t.status.conditions[0].reason, 'status.conditions[0].reason: Required value'],
    ['wrong kind', (t: any) => (t.kind = 'TokenizationPolicy'), 'kind: must be Tenant'],
    ['unserved version', (t: any) => (t.apiVersion = 'veil.dev/v1'), 'apiVersion'],
    ['bad resource name', (t: any) => (t.metadata.name = 'Acme'), 'metadata.name'],
  ])('rejects %s', (_name, edit, expected) => {
    const errors = errorsOf(tenantCrd, edited(tenant, edit));
    expect(errors.some((error) => error.startsWith(expected)), errors.join('\n')).toBe(true);
  });

  it('keeps tenantId immutable on update, and only on update', () => {
    const renamed = edited(tenant, (t) => (t.spec.tenantId = 'other'));
    expect(errorsOf(tenantCrd, renamed)).toEqual([]);
    expect(errorsOf(tenantCrd, renamed, tenant)).toEqual(['spec.tenantId: tenantId is immutable']);
    const rotated = edited(tenant, (t) => (t.spec.sessionKeys.rotateAt = '2026-11-23T00:00:00Z'));
    expect(errorsOf(tenantCrd, rotated, tenant)).toEqual([]);
  });

  it('compiles once per CRD text and exposes the CRD names', () => {
    const compiled = compileCrd(tenantCrd);
    expect(compileCrd(tenantCrd)).toBe(compiled);
    expect({ group: compiled.group, kind: compiled.kind, plural: compiled.plural, scope: compiled.scope, versions: compiled.versions }).toEqual({
      group: 'veil.dev',
      kind: 'Tenant',
      plural: 'tenants',
      scope: 'Namespaced',
      versions: ['v1alpha1'],
    });
    expect(() => compileCrd('kind: ConfigMap\n')).toThrow(/CustomResourceDefinition/);
  });
});

describe('TokenizationPolicy CRD', () => {
  it('accepts a typed sample', () => {
    expect(errorsOf(policyCrd, policy)).toEqual([]);
  });

  it('requires spec.policy.name to equal metadata.name', () => {
    expect(errorsOf(policyCrd, edited(policy, (p) => (p.metadata.name = 'other')))).toEqual(['(root): spec.policy.name must equal metadata.name']);
  });

  it('rejects a malformed policyVersion and a missing spec', () => {
    expect(errorsOf(policyCrd, edited(policy, (p) => (p.status.policyVersion = 'v1')))[0]).toMatch(/^status\.policyVersion/);
    expect(errorsOf(policyCrd, edited(policy, (p) => delete p.spec))).toContain('spec: Required value');
  });
});
