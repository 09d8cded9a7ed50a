// The mounted-directory layouts: deterministic serializers that parse back, parsers that list
// problems by field and never echo a value (a key ring holds secrets), the policy directory as
// the server's own loader reads it, and compatibility of the key-ring core and the scope list
// with the server's parsers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyRingFromData } from '../../../server/src/config/keyring-file.js';
import { AUTH_SCOPES } from '../../../server/src/config/schema.js';
import { loadPolicyDirectory } from '../policy/load.js';
import { parsePolicy } from '../policy/parse.js';
import type { Policy } from '../policy/types.js';
import {
  apiKeyDigest,
  contentHash,
  DEFAULT_POLICY_FILE,
  directoryBytes,
  directoryHash,
  isKeyRingSecret,
  parseApiKeysFile,
  parseDefaultPolicyFile,
  parseKeyRingFile,
  parseTenantSettingsFile,
  policyFileName,
  renderPolicyDirectory,
  serializeApiKeysFile,
  serializeKeyRingFile,
  serializePolicyFile,
  serializeTenantSettingsFile,
  tenantFileName,
} from './layout.js';
import { API_KEY_SCOPES } from './types.js';

const SECRET_A = 'a1'.repeat(32);
const SECRET_B = Buffer.alloc(32, 7).toString('base64');
const CANARY = 'canary-secret-value-0123456789';

let temp: string | undefined;
afterEach(() => {
  if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
  temp = undefined;
});

const policy = (name: string): Policy => ({
  name,
  version: '1.0.0',
  description: 'a policy: with "quotes" and # hashes',
  rules: [
    { name: 'cards', match: { entity_type: 'credit_card' }, action: 'tokenize', restore_mode: 'partial', restore_strategy: 'last4' },
    { name: 'support', match: { entity_type: 'email', value_pattern: '(?i)@support\\.example$' }, action: 'allow' },
    { name: 'all', match: {}, action: 'tokenize' },
  ],
  restore_strategies: { last4: { kind: 'reveal_last_n', n: 4, mask_char: '*' } },
});

describe('policy directory', () => {
  it('writes one <name>.yaml per policy that parsePolicy reads back unchanged', () => {
    const text = serializePolicyFile(policy('support-desk'), 'veil/support-desk');
    expect(text.startsWith('# Rendered by veil-operator from veil/support-desk')).toBe(true);
    const parsed = parsePolicy(text, 'support-desk.yaml');
    expect(parsed.issues).toEqual([]);
    expect(parsed.policy).toEqual(policy('support-desk'));
  });

  it('renders a directory the server loader accepts, with the default marker beside it', () => {
    const files = renderPolicyDirectory([{ policy: policy('zeta') }, { policy: policy('alpha'), default: true, source: 'ns/alpha' }]);
    expect(Object.keys(files)).toEqual(['alpha.yaml', 'zeta.yaml', DEFAULT_POLICY_FILE]);
    expect(files[DEFAULT_POLICY_FILE]).toBe('alpha\n');
    temp = mkdtempSync(join(tmpdir(), 'veil-policies-'));
    for (const [name, content] of Object.entries(files)) writeFileSync(join(temp, name), content);
    const loaded = loadPolicyDirectory(temp);
    expect(loaded.issues).toEqual([]);
    expect([...loaded.policies.keys()].sort()).toEqual(['alpha', 'zeta']);
    expect(parseDefaultPolicyFile(files[DEFAULT_POLICY_FILE]!)).toEqual({ ok: true, value: 'alpha' });
  });

  it('refuses ambiguous directories', () => {
    expect(() => renderPolicyDirectory([{ policy: policy('a'), default: true }, { policy: policy('b'), default: true }])).toThrow(/more than one/);
    expect(() => renderPolicyDirectory([{ policy: policy('a') }, { policy: policy('a') }])).toThrow(/duplicate/);
    expect(() => policyFileName('../etc')).toThrow();
    expect(parseDefaultPolicyFile('Not A Name\n').ok).toBe(false);
  });

  it('hashes are stable, order-independent and content-sensitive', () => {
    expect(contentHash('x')).toMatch(/^sha256:[0-9a-f]{64}$/);
    const hash = directoryHash({ 'a.yaml': '1', 'b.yaml': '2' });
    expect(directoryHash({ 'b.yaml': '2', 'a.yaml': '1' })).toBe(hash);
    expect(directoryHash({ 'a.yaml': '12', 'b.yaml': '' })).not.toBe(hash); // boundaries count
    expect(directoryBytes({ 'a.yaml': 'é' })).toBe(6 + 2);
  });
});

describe('tenant file names', () => {
  it('uses the resource name and refuses anything else', () => {
    expect(tenantFileName('acme')).toBe('acme.json');
    expect(tenantFileName('acme.prod-1')).toBe('acme.prod-1.json');
    for (const bad of ['Acme', '_operator', '../x', '', 'a/b', 'x'.repeat(254)]) expect(() => tenantFileName(bad), bad).toThrow();
  });
});

describe('key-ring file', () => {
  const ring = { tenant_id: 'acme:prod', generation: 3, current_kid: 'k2', keys: [{ kid: 'k1', secret: SECRET_A }, { kid: 'k2', secret: SECRET_B }] };

  it('round-trips deterministically', () => {
    const text = serializeKeyRingFile(ring);
    expect(serializeKeyRingFile({ ...ring })).toBe(text);
    expect(parseKeyRingFile(text, 'acme.json')).toEqual({ ok: true, value: { format: 'veil.keyring/v1', ...ring } });
  });

  it('carries exactly the server session.keyring shape', () => {
    const parsed = parseKeyRingFile(serializeKeyRingFile(ring), 'acme.json');
    if (!parsed.ok) throw new Error('unexpected');
    const { current_kid, keys } = parsed.value;
    const server = keyRingFromData({ current_kid, keys }, 'acme.json', true);
    expect(server.problems).toEqual([]);
    expect(server.ring?.currentKid).toBe('k2');
  });

  it('lists every problem by field and never shows a secret', () => {
    const text = JSON.stringify({
      format: 'veil.keyring/v1',
      tenant_id: 'acme',
      generation: 0,
      current_kid: 'k9',
      keys: [{ kid: 'k1', secret: CANARY }, { kid: 'k1', secret: SECRET_A }, { kid: 'bad kid', secret: SECRET_A }],
    });
    const result = parseKeyRingFile(text, 'acme.json');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const fields = result.problems.map((problem) => problem.field);
    expect(fields).toEqual(expect.arrayContaining(['acme.json: generation', 'acme.json: keys[2].kid']));
    expect(JSON.stringify(result)).not.toContain(CANARY);
    // Once the shape is right, the semantic checks run: duplicate kid, bad secret, unknown current kid.
    const second = parseKeyRingFile(JSON.stringify({ ...JSON.parse(text), generation: 1, keys: [{ kid: 'k1', secret: CANARY }, { kid: 'k1', secret: SECRET_A }] }), 'acme.json');
    expect(second.ok ? [] : second.problems).toEqual([
      { field: 'acme.json: keys[0].secret', message: 'must be 32 bytes written as 64 hex characters or standard base64' },
      { field: 'acme.json: keys[1].kid', message: 'duplicates an earlier kid' },
      { field: 'acme.json: current_kid', message: 'must be the kid of one of keys' },
    ]);
    expect(JSON.stringify(second)).not.toContain(CANARY);
  });

  it('rejects non-JSON without quoting it, unknown keys, and a foreign format', () => {
    const notJson = parseKeyRingFile(`{${CANARY}`, 'k.json');
    expect(notJson).toEqual({ ok: false, problems: [{ field: 'k.json', message: 'is not valid JSON' }] });
    const unknown = parseKeyRingFile(JSON.stringify({ ...JSON.parse(serializeKeyRingFile(ring)), extra: 1, [CANARY]: 2 }), 'k.json');
    expect(unknown.ok).toBe(false);
    expect(JSON.stringify(unknown)).not.toContain(CANARY);
    expect(parseKeyRingFile(JSON.stringify({ ...JSON.parse(serializeKeyRingFile(ring)), format: 'other/v9' }), 'k.json').ok).toBe(false);
  });

  it('refuses to serialize a ring that would not parse back', () => {
    expect(() => serializeKeyRingFile({ ...ring, current_kid: 'missing' })).toThrow(/current_kid/);
    expect(() => serializeKeyRingFile({ ...ring, keys: [{ kid: 'k2', secret: CANARY }] })).toThrow(/secret/);
    try {
      serializeKeyRingFile({ ...ring, keys: [{ kid: 'k2', secret: CANARY }] });
    } catch (error) {
      expect(String(error)).not.toContain(CANARY);
    }
  });

  it('accepts exactly the canonical secret spellings', () => {
    expect(isKeyRingSecret(SECRET_A)).toBe(true);
    expect(isKeyRingSecret(SECRET_B)).toBe(true);
    expect(isKeyRingSecret(SECRET_A.slice(2))).toBe(false);
    expect(isKeyRingSecret(Buffer.alloc(31).toString('base64'))).toBe(false);
    expect(isKeyRingSecret(`${SECRET_B.slice(0, 42)}B=`)).toBe(false); // non-zero unused bits
  });
});

describe('API-key file', () => {
  const file = {
    generation: 2,
    keys: [
      { identity: 'acme-frontend', tenant_id: 'acme', key_sha256: apiKeyDigest('k'.repeat(32)), scopes: ['transform', 'rehydrate'] as const, role: 'agent', access_level: 'confidential' },
      { identity: 'veil-operator', key_sha256: apiKeyDigest('o'.repeat(32)), scopes: ['admin'] as const },
    ],
  };

  it('round-trips and stores digests only', () => {
    const text = serializeApiKeysFile(file);
    expect(text).not.toContain('k'.repeat(32));
    const parsed = parseApiKeysFile(text, 'acme.json');
    expect(parsed.ok && parsed.value.keys.map((entry) => entry.identity)).toEqual(['acme-frontend', 'veil-operator']);
    expect(parsed.ok && parsed.value.keys[0]!.access_level).toBe('confidential');
    expect(apiKeyDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('rejects duplicate digests, unknown scopes and plaintext keys', () => {
    const duplicate = parseApiKeysFile(serializeApiKeysFile(file).replace(file.keys[1]!.key_sha256, file.keys[0]!.key_sha256), 'a.json');
    expect(duplicate.ok ? [] : duplicate.problems).toEqual([{ field: 'a.json: keys[1].key_sha256', message: 'duplicates an earlier key' }]);
    const scope = parseApiKeysFile(JSON.stringify({ format: 'veil.api-keys/v1', generation: 1, keys: [{ identity: 'x', key_sha256: apiKeyDigest('x'), scopes: ['root'] }] }), 'a.json');
    expect(scope.ok).toBe(false);
    const plaintext = parseApiKeysFile(JSON.stringify({ format: 'veil.api-keys/v1', generation: 1, keys: [{ identity: 'x', key: CANARY, scopes: [] }] }), 'a.json');
    expect(plaintext.ok).toBe(false);
    expect(JSON.stringify(plaintext)).not.toContain(CANARY);
  });

  it('knows the same scopes as the server', () => {
    // One list, not two kept in step: the server's config schema re-exports the common one.
    expect(API_KEY_SCOPES).toBe(AUTH_SCOPES);
    expect(AUTH_SCOPES).toHaveLength(11);
  });
});

describe('tenant settings file', () => {
  it('round-trips with the server config rate_limit names', () => {
    const text = serializeTenantSettingsFile({ tenant_id: 'acme', generation: 1, rate_limit: { requests_per_second: 50, burst_size: 100 }, policies: ['support-desk'] });
    expect(JSON.parse(text)).toEqual({ format: 'veil.tenant/v1', tenant_id: 'acme', generation: 1, rate_limit: { requests_per_second: 50, burst_size: 100 }, policies: ['support-desk'] });
    expect(parseTenantSettingsFile(text, 't.json').ok).toBe(true);
  });

  it('rejects a non-positive rate and a bad policy name', () => {
    expect(() => serializeTenantSettingsFile({ tenant_id: 'acme', generation: 1, rate_limit: { requests_per_second: 0 } })).toThrow(/requests_per_second/);
    expect(parseTenantSettingsFile(JSON.stringify({ format: 'veil.tenant/v1', tenant_id: 'acme', generation: 1, policies: ['Bad'] }), 't.json').ok).toBe(false);
  });
});
