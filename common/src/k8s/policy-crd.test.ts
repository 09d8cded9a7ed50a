// The TokenizationPolicy CRD carries exactly the policy schema the server validates with: for
// the repository's policies, hand-written invalid samples and thousands of seeded random
// mutations of them, the server's schema validator (ajv on POLICY_SCHEMA, as parse.ts runs it)
// and the CRD's openAPIV3Schema (as the API server / simulator runs it) agree on valid/invalid.
import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { POLICY_SCHEMA } from '../policy/schema.js';
import { CRD_FILES } from './crds.js';
import { validateAgainstCrd } from './validate.js';

const repoRoot = new URL('../../../', import.meta.url);
const crdYaml = readFileSync(new URL(CRD_FILES.TokenizationPolicy[0]!, repoRoot), 'utf8');
const serverValidate = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false }).compile(
  JSON.parse(JSON.stringify(POLICY_SCHEMA)) as Record<string, unknown>,
);

function serverSaysValid(policy: unknown): boolean {
  return serverValidate(policy);
}

/** CRD verdict on the policy part only (the root name rule and metadata are not the policy schema). */
function crdSaysValid(policy: unknown): { valid: boolean; paths: string[] } {
  const object = { apiVersion: 'veil.dev/v1alpha1', kind: 'TokenizationPolicy', metadata: { name: 'sample' }, spec: { policy } };
  const result = validateAgainstCrd(crdYaml, object);
  const errors = result.errors.filter((error) => error.path.startsWith('spec.policy') || error.path === 'spec');
  return { valid: errors.length === 0, paths: errors.map((error) => `${error.path}: ${error.message}`) };
}

const policyDir = new URL('policies/', repoRoot);
const repoPolicies: [string, unknown][] = readdirSync(policyDir)
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => [name, parse(readFileSync(new URL(name, policyDir), 'utf8')) as unknown]);

const base = { name: 'p', version: '1', rules: [{ name: 'all', match: {}, action: 'tokenize' }] };

const INVALID: [string, unknown][] = [
  ['missing rules', { name: 'p', version: '1' }],
  ['unknown top-level key', { ...base, extra: true }],
  ['bad name', { ...base, name: 'Bad Name' }],
  ['empty version', { ...base, version: '' }],
  ['unknown action', { ...base, rules: [{ name: 'a', match: {}, action: 'encrypt' }] }],
  ['unknown match key', { ...base, rules: [{ name: 'a', match: { entity: 'email' }, action: 'allow' }] }],
  ['duplicate entity_types', { ...base, rules: [{ name: 'a', match: { entity_types: ['email', 'email'] }, action: 'allow' }] }],
  ['empty entity_types', { ...base, rules: [{ name: 'a', match: { entity_types: [] }, action: 'allow' }] }],
  ['bad entity type', { ...base, rules: [{ name: 'a', match: { entity_type: 'Email' }, action: 'allow' }] }],
  ['strategy without kind', { ...base, restore_strategies: { s: { n: 3 } } }],
  ['strategy with a field of another kind', { ...base, restore_strategies: { s: { kind: 'reveal_last_n', n: 3, start: 1 } } }],
  ['reveal_range without len', { ...base, restore_strategies: { s: { kind: 'reveal_range', start: 1 } } }],
  ['mask with n', { ...base, restore_strategies: { s: { kind: 'mask', n: 1 } } }],
  ['n out of range', { ...base, restore_strategies: { s: { kind: 'reveal_first_n', n: 65 } } }],
  ['n not an integer', { ...base, restore_strategies: { s: { kind: 'reveal_first_n', n: 2.5 } } }],
  ['two-character mask', { ...base, restore_strategies: { s: { kind: 'reveal_last_n', n: 2, mask_char: '**' } } }],
  ['space mask', { ...base, restore_strategies: { s: { kind: 'reveal_last_n', n: 2, mask_char: ' ' } } }],
  ['bucket without label', { ...base, restore_strategies: { s: { kind: 'bucket', ranges: [{ min: 1 }] } } }],
  ['bad strategy key', { ...base, restore_strategies: { 'Bad Key': { kind: 'mask' } } }],
  ['too many strategies', { ...base, restore_strategies: Object.fromEntries(Array.from({ length: 257 }, (_, index) => [`s${index}`, { kind: 'mask' }])) }],
  ['bad channel key', { ...base, channel_rules: { 'partner portal': { max_restore_mode: 'partial' } } }],
  ['channel rule without mode', { ...base, channel_rules: { portal: {} } }],
  ['override without role or purpose', { ...base, override_restore_mode: [{ restore_mode: 'full' }] }],
  ['custom pattern with prefixed type', { ...base, custom_patterns: [{ entity_type: 'custom:x', pattern: 'x' }] }],
  ['confidence above 1', { ...base, custom_patterns: [{ entity_type: 'x', pattern: 'x', confidence: 1.5 }] }],
  ['duplicate roles', { ...base, metadata_policy: { roles: ['a', 'a'] } }],
  ['string for boolean', { ...base, metadata_policy: { expose_gender: 'no' } }],
  ['rules not a list', { ...base, rules: {} }],
];

const VALID: [string, unknown][] = [
  ['minimal', base],
  ['every strategy kind', {
    ...base,
    restore_strategies: {
      a: { kind: 'reveal_last_n', n: 4, mask_char: '#' },
      b: { kind: 'reveal_first_n', n: 1 },
      c: { kind: 'reveal_range', start: 0, len: 2, mask_char: 'é' },
      d: { kind: 'mask' },
      e: { kind: 'bucket', ranges: [{ max: 10, label: 'low' }, { min: 10, label: 'high' }] },
    },
  }],
  ['override with purpose only', { ...base, override_restore_mode: [{ caller_purpose: 'audit', restore_mode: 'full' }] }],
  ['rules empty', { ...base, rules: [] }],
  ['256 strategies', { ...base, restore_strategies: Object.fromEntries(Array.from({ length: 256 }, (_, index) => [`s${index}`, { kind: 'mask' }])) }],
];

// ---------------------------------------------------------------------------------------------
// Seeded mutations

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VALUE_POOL: unknown[] = [
  '', 'x', 'Bad Name', 'ok-name', 'email', 'custom:ticket_id', 'custom:Bad', '**', '#', ' ', 'x'.repeat(129), 'x'.repeat(1025),
  'mask', 'bucket', 'reveal_range', 'reveal_last_n', 'full', 'partial', 'none', 'deny', 'tokenize', 'critical',
  0, 1, -1, 2.5, 4, 64, 65, 4096, 4097, 1.5, true, false, null, [], {}, ['email'], ['email', 'email'], { kind: 'mask' }, { max_restore_mode: 'masked' },
];
const KEY_POOL = ['kind', 'n', 'start', 'len', 'mask_char', 'ranges', 'label', 'min', 'max', 'name', 'match', 'action', 'caller_role', 'caller_purpose', 'restore_mode', 'entity_types', 'unknown_key', 'Bad Key', 'x'];

type Container = Record<string, unknown> | unknown[];

function containers(value: unknown, out: Container[] = []): Container[] {
  if (Array.isArray(value)) {
    out.push(value);
    for (const item of value) containers(item, out);
  } else if (value !== null && typeof value === 'object') {
    out.push(value as Record<string, unknown>);
    for (const child of Object.values(value)) containers(child, out);
  }
  return out;
}

function mutate(policy: unknown, random: () => number): unknown {
  const copy = structuredClone(policy);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const steps = 1 + Math.floor(random() * 2);
  for (let step = 0; step < steps; step += 1) {
    const target = pick(containers(copy));
    const operation = Math.floor(random() * 4);
    if (Array.isArray(target)) {
      if (target.length > 0 && operation === 0) target.splice(Math.floor(random() * target.length), 1);
      else if (target.length > 0 && operation === 1) target.push(structuredClone(pick(target)));
      else if (target.length > 0) target[Math.floor(random() * target.length)] = structuredClone(pick(VALUE_POOL));
      else target.push(structuredClone(pick(VALUE_POOL)));
    } else {
      const keys = Object.keys(target);
      if (keys.length > 0 && operation === 0) Reflect.deleteProperty(target, pick(keys));
      else if (keys.length > 0 && operation === 1) target[pick(keys)] = structuredClone(pick(VALUE_POOL));
      else target[pick(KEY_POOL)] = structuredClone(pick(VALUE_POOL));
    }
  }
  return copy;
}

describe('policy schema <-> TokenizationPolicy CRD', () => {
  it.each(repoPolicies)('policies/%s is valid for both', (_name, policy) => {
    expect(serverSaysValid(policy)).toBe(true);
    expect(crdSaysValid(policy)).toEqual({ valid: true, paths: [] });
  });

  it.each(VALID)('valid sample: %s', (_name, policy) => {
    expect(serverSaysValid(policy)).toBe(true);
    expect(crdSaysValid(policy).paths).toEqual([]);
  });

  it.each(INVALID)('invalid sample: %s', (_name, policy) => {
    expect(serverSaysValid(policy)).toBe(false);
    expect(crdSaysValid(policy).valid).toBe(false);
  });

  it('agrees on seeded random mutations of the repository policies', () => {
    const random = mulberry32(0x5eed);
    const disagreements: string[] = [];
    let valid = 0;
    let invalid = 0;
    for (const [name, policy] of repoPolicies) {
      for (let round = 0; round < 700; round += 1) {
        const mutated = mutate(policy, random);
        const server = serverSaysValid(mutated);
        const crd = crdSaysValid(mutated);
        if (server) valid += 1;
        else invalid += 1;
        if (server !== crd.valid && disagreements.length < 5) {
          disagreements.push(`${name}#${round}: server ${server}, crd ${crd.valid} ${crd.paths.join('; ')}\n${JSON.stringify(mutated)}`);
        }
      }
    }
    expect(disagreements).toEqual([]);
    // The mutations must exercise both verdicts, or the comparison proves little.
    expect(valid).toBeGreaterThan(150);
    expect(invalid).toBeGreaterThan(600);
  });
});
