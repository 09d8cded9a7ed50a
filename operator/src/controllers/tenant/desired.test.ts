// Tenant files: API keys become digests (never the key), unresolved references are left out and
// named, generations grow only on change, settings map to the server's tenant shape, and the
// shared-object edit replaces one file and sweeps departed tenants but keeps `_` files.
import { describe, expect, it } from 'vitest';
import { apiKeyDigest, parseApiKeysFile, parseTenantSettingsFile, type Tenant } from '@veil/common';
import { editSharedData, planApiKeys, planSettings, readRing, renderRing } from './desired.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

function tenant(spec: Partial<Tenant['spec']>): Tenant {
  return { apiVersion: 'veil.dev/v1alpha1', kind: 'Tenant', metadata: { name: 'acme', namespace: 'veil' }, spec: { tenantId: 'acme-corp', ...spec } };
}

describe('planApiKeys', () => {
  const key = 'a-long-enough-api-key-value';
  const secrets: Record<string, Record<string, string>> = { app: { token: b64(key), short: b64('tiny') } };
  const lookup = (name: string): Record<string, string> | undefined => secrets[name];

  it('writes digests only, with scopes, role and purpose', () => {
    const plan = planApiKeys(tenant({ apiKeys: [{ identity: 'app', secretRef: { name: 'app', key: 'token' }, scopes: ['transform'], role: 'agent', purpose: 'support', accessLevel: 'internal' }] }), lookup, undefined, 'acme.json');
    expect(plan.text).not.toContain(key);
    const parsed = parseApiKeysFile(plan.text, 'acme.json');
    expect(parsed.ok && parsed.value).toEqual({ format: 'veil.api-keys/v1', generation: 1, keys: [{ identity: 'app', tenant_id: 'acme-corp', key_sha256: apiKeyDigest(key), scopes: ['transform'], role: 'agent', purpose: 'support', access_level: 'internal' }] });
    expect(plan.problems).toEqual([]);
  });

  it('leaves out and names every reference it cannot resolve', () => {
    const plan = planApiKeys(
      tenant({
        apiKeys: [
          { identity: 'a', secretRef: { name: 'missing', key: 'token' } },
          { identity: 'b', secretRef: { name: 'app', key: 'nope' } },
          { identity: 'c', secretRef: { name: 'app', key: 'short' } },
          { identity: 'd', secretRef: { name: 'app', key: 'token' } },
          { identity: 'e', secretRef: { name: 'app', key: 'token' } },
        ],
      }),
      lookup,
      undefined,
      'acme.json',
    );
    expect(plan.count).toBe(1);
    expect(plan.problems).toEqual([
      'spec.apiKeys[0].secretRef: Secret missing not found',
      'spec.apiKeys[1].secretRef: Secret app has no key nope',
      'spec.apiKeys[2].secretRef: the API key must be at least 16 characters',
      'spec.apiKeys[4].secretRef: the same API key is referenced twice',
    ]);
    expect(plan.problems.join(' ')).not.toContain('tiny');
  });

  it('keeps the generation when nothing changed and bumps it when something did', () => {
    const spec = { apiKeys: [{ identity: 'app', secretRef: { name: 'app', key: 'token' } }] };
    const first = planApiKeys(tenant(spec), lookup, undefined, 'acme.json');
    expect(planApiKeys(tenant(spec), lookup, first.text, 'acme.json').text).toBe(first.text);
    const changed = planApiKeys(tenant({ apiKeys: [{ ...spec.apiKeys[0]!, scopes: ['detect'] }] }), lookup, first.text, 'acme.json');
    expect(parseApiKeysFile(changed.text, 'acme.json').ok && JSON.parse(changed.text).generation).toBe(2);
  });
});

describe('planSettings', () => {
  it('maps rate limit and policies to the server names, generation on change only', () => {
    const first = planSettings(tenant({ rateLimit: { requestsPerSecond: 5, burstSize: 9 }, policies: ['support'] }), undefined, 'acme.json');
    const parsed = parseTenantSettingsFile(first, 'acme.json');
    expect(parsed.ok && parsed.value).toEqual({ format: 'veil.tenant/v1', tenant_id: 'acme-corp', generation: 1, rate_limit: { requests_per_second: 5, burst_size: 9 }, policies: ['support'] });
    expect(planSettings(tenant({ rateLimit: { requestsPerSecond: 5, burstSize: 9 }, policies: ['support'] }), first, 'acme.json')).toBe(first);
    expect(JSON.parse(planSettings(tenant({}), first, 'acme.json')).generation).toBe(2);
  });
});

describe('readRing', () => {
  it('reads its own ring, and treats another tenant id or a bad file as unreadable', () => {
    const text = renderRing('acme-corp', { generation: 3, current_kid: 'k1', keys: [{ kid: 'k1', secret: 'a'.repeat(64) }] });
    expect(readRing(text, 'acme.json', 'acme-corp')).toEqual({ state: 'ok', ring: { generation: 3, current_kid: 'k1', keys: [{ kid: 'k1', secret: 'a'.repeat(64) }] } });
    expect(readRing(text, 'acme.json', 'other')).toMatchObject({ state: 'unreadable' });
    expect(readRing('{', 'acme.json', 'acme-corp')).toMatchObject({ state: 'unreadable', problems: ['acme.json: is not valid JSON'] });
    expect(readRing(undefined, 'acme.json', 'acme-corp')).toEqual({ state: 'absent' });
  });
});

describe('editSharedData', () => {
  it('sets one file, removes departed tenants, keeps `_` files', () => {
    const current = { 'acme.json': 'old', 'gone.json': 'x', 'beta.json': 'b', '_veil-operator.json': 'op' };
    expect(editSharedData(current, 'acme.json', 'new', new Set(['acme.json', 'beta.json']))).toEqual({ 'acme.json': 'new', 'beta.json': 'b', '_veil-operator.json': 'op' });
    expect(editSharedData(current, 'acme.json', undefined, new Set(['beta.json']))).toEqual({ 'beta.json': 'b', '_veil-operator.json': 'op' });
  });
});
