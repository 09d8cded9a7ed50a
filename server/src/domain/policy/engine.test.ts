// Policy engine: first-match-wins decisions, type-only evaluation, caller-gated restore
// overrides, tighten-only request options, channel ceilings, and the shipped policies.
import { fileURLToPath } from 'node:url';
import {
  BUILTIN_CHANNEL_CEILINGS,
  BUILTIN_CHANNELS,
  BUILTIN_ENTITY_TYPES,
  DEFAULT_POLICY,
  loadPolicyDirectory,
  parsePolicy,
  RESTORE_MODES,
  SECRET_ENTITY_TYPES,
  VeilError,
  type Policy,
  type RestoreMode,
} from '@veil/common';
import { describe, expect, it } from 'vitest';
import { ENTITY_CATALOG } from '../catalog.js';
import { CompiledPolicy, modeRank, tightest } from './index.js';

function compile(yaml: string): CompiledPolicy {
  const result = parsePolicy(yaml, 'test.yaml');
  expect(result.issues).toEqual([]);
  return new CompiledPolicy(result.policy!);
}

const header = 'name: p\nversion: "7.1"\n';

describe('catalog agreement', () => {
  it('the policy validator knows exactly the catalog types', () => {
    expect([...BUILTIN_ENTITY_TYPES].sort()).toEqual([...ENTITY_CATALOG.keys()].sort());
  });

  it('credential types are catalog types', () => {
    for (const type of SECRET_ENTITY_TYPES) expect(ENTITY_CATALOG.has(type)).toBe(true);
  });
});

describe('decide', () => {
  const policy = compile(`${header}rules:
  - name: deny-ssn-external
    match: {entity_type: us_ssn, destination: external_llm}
    action: deny
    reason: no SSNs to external models
  - name: redact-secrets
    match: {entity_types: [api_key, password]}
    action: redact
  - name: allow-own-domain
    match: {entity_type: email, value_pattern: '(?i)@acme\\.example$'}
    action: allow
  - name: cards
    match: {entity_type: credit_card}
    action: tokenize
    protection_level: medium
    restore_mode: partial
    restore_strategy: last4
  - name: tickets
    match: {entity_type: ticket_id}
    action: tokenize
    restore_mode: masked
  - name: auditors
    match: {caller_role: auditor, caller_purpose: audit}
    action: tokenize
    restore_mode: formatted
  - name: low-level
    match: {protection_level: low}
    action: allow
  - name: emails
    match: {entity_type: email}
    action: tokenize
    restore_mode: full
restore_strategies:
  last4: {kind: reveal_last_n, n: 4}
custom_patterns:
  - {entity_type: ticket_id, pattern: "TCK-[0-9]{6}"}
`);

  it('carries name and version', () => {
    expect(policy.name).toBe('p');
    expect(policy.version).toBe('7.1');
  });

  it('applies every action with its restore floor', () => {
    expect(policy.decide('us_ssn', { destination: 'external_llm' }, '123-45-6789')).toEqual({
      entity_type: 'us_ssn',
      action: 'deny',
      protection_level: 'critical',
      rule_matched: 'deny-ssn-external',
      restore_mode: 'none',
      reason: 'no SSNs to external models',
    });
    expect(policy.decide('password', {}, 'hunter2')).toMatchObject({ action: 'redact', restore_mode: 'none', rule_matched: 'redact-secrets' });
    expect(policy.decide('email', {}, 'bob@acme.example')).toMatchObject({ action: 'allow', restore_mode: 'full', rule_matched: 'allow-own-domain' });
    expect(policy.decide('credit_card', {}, '4111111111111111')).toEqual({
      entity_type: 'credit_card',
      action: 'tokenize',
      protection_level: 'medium',
      rule_matched: 'cards',
      restore_mode: 'partial',
      restore_strategy: 'last4',
    });
  });

  it('is first-match-wins', () => {
    // The auditor rule matches everything for that caller, but cards come first.
    const auditor = { caller_role: 'auditor', caller_purpose: 'audit' };
    expect(policy.decide('credit_card', auditor, '4111').rule_matched).toBe('cards');
    expect(policy.decide('phone', auditor, '555').rule_matched).toBe('auditors');
    expect(policy.decide('phone', { caller_role: 'auditor' }, '555').rule_matched).toBe('default');
  });

  it('falls back to tokenize/full with the catalog level when nothing matches', () => {
    expect(policy.decide('phone', {}, '+1 415 555 0100')).toEqual({
      entity_type: 'phone',
      action: 'tokenize',
      protection_level: 'high',
      rule_matched: 'default',
      restore_mode: 'full',
    });
    expect(policy.decide('us_ssn', { destination: 'local_llm' }, '123-45-6789')).toMatchObject({ rule_matched: 'default', protection_level: 'critical' });
  });

  it('matches destination, protection_level and caller attributes exactly', () => {
    expect(policy.decide('us_ssn', {}, 'x').rule_matched).toBe('default');
    expect(policy.decide('mac_address', {}, '00:11:22:33:44:55')).toMatchObject({ rule_matched: 'low-level', protection_level: 'low' });
  });

  it('matches custom types written bare or prefixed, and uses the custom level', () => {
    expect(policy.decide('custom:ticket_id', {}, 'TCK-000001')).toMatchObject({ rule_matched: 'tickets', protection_level: 'high', restore_mode: 'masked' });
    expect(policy.decide('ticket_id', {}, 'TCK-000001')).toMatchObject({ entity_type: 'ticket_id', rule_matched: 'tickets' });
    expect(policy.decide('custom:other', {}, 'x')).toMatchObject({ rule_matched: 'default', protection_level: 'high' });
  });

  it('tests value_pattern against the value (case-insensitive with (?i))', () => {
    expect(policy.decide('email', {}, 'Bob@ACME.example').action).toBe('allow');
    expect(policy.decide('email', {}, 'bob@other.example')).toMatchObject({ action: 'tokenize', rule_matched: 'emails' });
  });

  it('tests value_pattern against the folded value too (full-width digits, Unicode dashes)', () => {
    const deny = compile(`${header}rules:
  - {name: no-test-ssn, match: {entity_type: us_ssn, value_pattern: "^078-05-1123$"}, action: deny}
`);
    expect(deny.decide('us_ssn', {}, '078-05-1123').action).toBe('deny');
    expect(deny.decide('us_ssn', {}, '\uff10\uff17\uff18\uff0d\uff10\uff15\uff0d\uff11\uff11\uff12\uff13').action).toBe('deny');
    expect(deny.decide('us_ssn', {}, '078\u201305\u20111123').action).toBe('deny');
    expect(deny.decide('us_ssn', {}, '\u0660\u0667\u0668-\u0660\u0665-\u0661\u0661\u0662\u0663').action).toBe('deny');
    expect(deny.decide('us_ssn', {}, '078-05-1124').action).not.toBe('deny');
  });

  it('without a value, returns the most restrictive outcome of the rules that could match', () => {
    // allow-own-domain might match, emails settles: tokenize is stricter than allow.
    expect(policy.decide('email', {})).toMatchObject({ action: 'tokenize', rule_matched: 'emails', restore_mode: 'full' });
  });

  it('type-only evaluation compares actions, then restore modes, and includes the default when nothing settles', () => {
    const valueRules = compile(`${header}rules:
  - {name: maybe-deny, match: {entity_type: phone, value_pattern: "^\\\\+1"}, action: deny}
  - {name: phones, match: {entity_type: phone}, action: tokenize, restore_mode: full}
  - {name: maybe-partial, match: {entity_type: email, value_pattern: "x"}, action: tokenize, restore_mode: partial}
  - {name: maybe-masked, match: {entity_type: email, value_pattern: "y"}, action: tokenize, restore_mode: masked}
  - {name: emails, match: {entity_type: email}, action: tokenize, restore_mode: full}
  - {name: later-deny, match: {entity_type: email, value_pattern: "z"}, action: deny}
  - {name: maybe-redact, match: {entity_type: iban, value_pattern: "^DE"}, action: redact}
  - {name: maybe-allow, match: {entity_type: url, value_pattern: "acme"}, action: allow}
  - {name: maybe-formatted, match: {entity_type: date, value_pattern: "2"}, action: tokenize, restore_mode: formatted}
`);
    expect(valueRules.decide('phone', {})).toMatchObject({ action: 'deny', rule_matched: 'maybe-deny' });
    expect(valueRules.decide('phone', {}, '+44 20')).toMatchObject({ action: 'tokenize', rule_matched: 'phones' });
    expect(valueRules.decide('email', {})).toMatchObject({ action: 'tokenize', rule_matched: 'maybe-masked', restore_mode: 'masked' });
    expect(valueRules.decide('iban', {})).toMatchObject({ action: 'redact', rule_matched: 'maybe-redact' });
    expect(valueRules.decide('url', {})).toMatchObject({ action: 'tokenize', rule_matched: 'default' });
    expect(valueRules.decide('date', {})).toMatchObject({ restore_mode: 'formatted', rule_matched: 'maybe-formatted' });
  });

  it('runs value_pattern in linear time', () => {
    const hostile = compile(`${header}rules:\n  - {name: evil, match: {value_pattern: "^(a+)+$"}, action: allow}\n`);
    expect(hostile.decide('email', {}, `${'a'.repeat(100_000)}!`).rule_matched).toBe('default');
  });

  it('throws a VeilError for a hand-built policy whose pattern the linear-time engine cannot run', () => {
    const bad: Policy = { name: 'bad', version: '1', rules: [{ name: 'r', match: { value_pattern: '(?=a)' }, action: 'allow' }] };
    expect(() => new CompiledPolicy(bad)).toThrow(VeilError);
  });

  it('the built-in default policy tokenizes everything and restores full', () => {
    const builtin = new CompiledPolicy(DEFAULT_POLICY);
    for (const type of [...ENTITY_CATALOG.keys(), 'custom:x']) {
      expect(builtin.decide(type, {}, 'v')).toMatchObject({ action: 'tokenize', restore_mode: 'full' });
      expect(builtin.decide(type, {})).toMatchObject({ action: 'tokenize', restore_mode: 'full' });
    }
  });
});

describe('channelCeiling', () => {
  const plain = compile(`${header}rules: []\n`);
  const tightened = compile(`${header}rules: []
channel_rules:
  user_output: {max_restore_mode: partial}
  tool_payload: {max_restore_mode: formatted}
  export: {max_restore_mode: abstract}
  partner_portal: {max_restore_mode: partial}
  wide_open: {max_restore_mode: full}
`);

  it('has the built-in ceilings', () => {
    for (const channel of BUILTIN_CHANNELS) expect(plain.channelCeiling(channel)).toBe(BUILTIN_CHANNEL_CEILINGS[channel]);
  });

  it('applies channel_rules tightening to built-in channels', () => {
    expect(tightened.channelCeiling('user_output')).toBe('partial');
    expect(tightened.channelCeiling('tool_payload')).toBe('formatted');
    expect(tightened.channelCeiling('export')).toBe('abstract');
    expect(tightened.channelCeiling('internal_summary')).toBe('partial');
    expect(tightened.channelCeiling('log_safe')).toBe('none');
  });

  it('restores nothing on a custom channel unless channel_rules names it', () => {
    expect(plain.channelCeiling('partner_portal')).toBe('none');
    expect(tightened.channelCeiling('partner_portal')).toBe('partial');
    expect(tightened.channelCeiling('wide_open')).toBe('full');
    expect(tightened.channelCeiling('other')).toBe('none');
    expect(plain.channelCeiling('constructor')).toBe('none');
    expect(plain.channelCeiling('__proto__')).toBe('none');
  });

  it('rejects invalid channel names', () => {
    for (const channel of ['', 'User_Output', 'has space', 'a.b', 'ü', 'x\n']) {
      let thrown: unknown;
      try {
        plain.channelCeiling(channel);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(channel)).toBeInstanceOf(VeilError);
      expect((thrown as VeilError).code).toBe('VEIL_VALIDATION_FAILED');
      expect((thrown as VeilError).message).toBe('output_channel: invalid channel name');
    }
  });
});

describe('resolveRestoreMode', () => {
  const policy = compile(`${header}rules: []
channel_rules:
  partner_portal: {max_restore_mode: partial}
override_restore_mode:
  - {caller_role: supervisor, caller_purpose: audit, entity_types: [email, ticket_id], restore_mode: full}
  - {caller_role: trainee, restore_mode: abstract}
  - {caller_purpose: billing, entity_types: [credit_card], restore_mode: partial}
  - {caller_purpose: billing, restore_mode: masked}
custom_patterns:
  - {entity_type: ticket_id, pattern: "TCK-[0-9]{6}"}
`);
  const base = { caller: {}, channel: 'user_output' } as const;

  it('returns the floor when nothing else applies', () => {
    for (const floor of RESTORE_MODES) expect(policy.resolveRestoreMode({ ...base, type: 'email', floor })).toBe(floor);
  });

  it('widens through a matching caller override (role and purpose both required)', () => {
    const supervisor = { role: 'supervisor', purpose: 'audit' };
    expect(policy.resolveRestoreMode({ ...base, type: 'email', floor: 'none', caller: supervisor })).toBe('full');
    expect(policy.resolveRestoreMode({ ...base, type: 'custom:ticket_id', floor: 'masked', caller: supervisor })).toBe('full');
    // Lacking the purpose, or for a type not listed: the policy floor.
    expect(policy.resolveRestoreMode({ ...base, type: 'email', floor: 'none', caller: { role: 'supervisor' } })).toBe('none');
    expect(policy.resolveRestoreMode({ ...base, type: 'phone', floor: 'none', caller: supervisor })).toBe('none');
    expect(policy.resolveRestoreMode({ ...base, type: 'email', floor: 'none', caller: { purpose: 'audit' } })).toBe('none');
  });

  it('tightens through a matching restrictive override', () => {
    expect(policy.resolveRestoreMode({ ...base, type: 'email', floor: 'full', caller: { role: 'trainee' } })).toBe('abstract');
    expect(policy.resolveRestoreMode({ ...base, type: 'email', floor: 'full', caller: { role: 'trainee', purpose: 'anything' } })).toBe('abstract');
  });

  it('uses the first matching override entry', () => {
    expect(policy.resolveRestoreMode({ ...base, type: 'credit_card', floor: 'full', caller: { purpose: 'billing' } })).toBe('partial');
    expect(policy.resolveRestoreMode({ ...base, type: 'iban', floor: 'full', caller: { purpose: 'billing' } })).toBe('masked');
  });

  it('only tightens with the session override, the requested mode and the per-token override', () => {
    const args = { ...base, type: 'phone', floor: 'partial' as RestoreMode };
    expect(policy.resolveRestoreMode({ ...args, requested: 'full' })).toBe('partial');
    expect(policy.resolveRestoreMode({ ...args, requested: 'masked' })).toBe('masked');
    expect(policy.resolveRestoreMode({ ...args, tokenOverride: 'full' })).toBe('partial');
    expect(policy.resolveRestoreMode({ ...args, tokenOverride: 'none' })).toBe('none');
    expect(policy.resolveRestoreMode({ ...args, sessionOverride: 'full' })).toBe('partial');
    expect(policy.resolveRestoreMode({ ...args, sessionOverride: 'abstract', requested: 'masked' })).toBe('abstract');
    expect(policy.resolveRestoreMode({ ...args, requested: 'masked', tokenOverride: 'partial' })).toBe('masked');
  });

  it('applies request tightenings after a widening override', () => {
    const supervisor = { role: 'supervisor', purpose: 'audit' };
    expect(policy.resolveRestoreMode({ ...base, type: 'email', floor: 'none', caller: supervisor, sessionOverride: 'masked' })).toBe('masked');
    expect(policy.resolveRestoreMode({ ...base, type: 'email', floor: 'none', caller: supervisor, requested: 'partial' })).toBe('partial');
  });

  it('clamps to the channel ceiling last, overrides included', () => {
    const supervisor = { role: 'supervisor', purpose: 'audit' };
    for (const channel of BUILTIN_CHANNELS) {
      expect(policy.resolveRestoreMode({ type: 'email', floor: 'full', caller: {}, channel })).toBe(BUILTIN_CHANNEL_CEILINGS[channel]);
      expect(policy.resolveRestoreMode({ type: 'email', floor: 'none', caller: supervisor, channel })).toBe(BUILTIN_CHANNEL_CEILINGS[channel]);
    }
    expect(policy.resolveRestoreMode({ type: 'email', floor: 'full', caller: {}, channel: 'partner_portal' })).toBe('partial');
    expect(policy.resolveRestoreMode({ type: 'email', floor: 'full', caller: supervisor, channel: 'unnamed' })).toBe('none');
    expect(() => policy.resolveRestoreMode({ type: 'email', floor: 'full', caller: {}, channel: 'Bad Channel' })).toThrow(VeilError);
  });

  it('keeps formatted under a full ceiling and never widens beyond the floor otherwise', () => {
    expect(policy.resolveRestoreMode({ ...base, type: 'phone', floor: 'formatted' })).toBe('formatted');
    expect(policy.resolveRestoreMode({ ...base, type: 'phone', floor: 'full', requested: 'formatted' })).toBe('formatted');
    expect(policy.resolveRestoreMode({ ...base, type: 'phone', floor: 'formatted', requested: 'full' })).toBe('formatted');
    for (const floor of RESTORE_MODES) {
      for (const requested of RESTORE_MODES) {
        for (const channel of [...BUILTIN_CHANNELS, 'partner_portal', 'custom']) {
          const mode = policy.resolveRestoreMode({ type: 'phone', floor, caller: {}, requested, tokenOverride: requested, channel });
          expect(modeRank(mode)).toBeLessThanOrEqual(Math.min(modeRank(floor), modeRank(requested), modeRank(policy.channelCeiling(channel))));
        }
      }
    }
  });

  it('exposes strategies by own name only', () => {
    const withStrategies = compile(`${header}rules: []\nrestore_strategies:\n  last4: {kind: reveal_last_n, n: 4}\n`);
    expect(withStrategies.strategy('last4')).toEqual({ kind: 'reveal_last_n', n: 4 });
    expect(withStrategies.strategy('missing')).toBeUndefined();
    expect(withStrategies.strategy('constructor')).toBeUndefined();
    expect(withStrategies.strategy('toString')).toBeUndefined();
  });

  it('re-exports the mode helpers', () => {
    expect(tightest('full', 'masked')).toBe('masked');
  });
});

describe('resolveRestore: caller-dependent rules re-decided for the rehydrating caller', () => {
  const policy = compile(`${header}rules:
  - {name: supervisor-email, match: {entity_type: email, caller_role: supervisor}, action: tokenize, restore_mode: full}
  - {name: intern-email, match: {entity_type: email, caller_role: intern}, action: redact}
  - {name: contractor-email, match: {entity_type: email, caller_purpose: outsourcing}, action: deny}
  - {name: auditor-email, match: {entity_type: email, caller_role: auditor}, action: allow}
  - {name: email, match: {entity_type: email}, action: tokenize, restore_mode: masked}
  - {name: agent-card, match: {entity_type: credit_card, caller_role: agent}, action: tokenize, restore_mode: partial, restore_strategy: last4}
  - {name: card, match: {entity_type: credit_card}, action: tokenize, restore_mode: partial, restore_strategy: first2}
  - {name: agent-local-phone, match: {entity_type: phone, destination: local_llm, caller_role: agent}, action: deny}
  - {name: rest, match: {}, action: tokenize}
restore_strategies:
  last4: {kind: reveal_last_n, n: 4}
  first2: {kind: reveal_first_n, n: 2}
override_restore_mode:
  - {caller_role: reviewer, entity_types: [email], restore_mode: partial}
`);
  const email = { type: 'email', value: 'a@example.org' };
  const resolve = (entry: Parameters<CompiledPolicy['resolveRestore']>[0]['entry'], caller: { role?: string; purpose?: string }, channel = 'user_output') =>
    policy.resolveRestore({ entry, caller, channel });

  it('never carries a privileged transform caller\'s disclosure over to another caller', () => {
    // Tokenized for a supervisor (floor full): each caller gets what the rules give it.
    const sealed = { ...email, mode: 'full' as const };
    expect(resolve(sealed, { role: 'supervisor' })).toEqual({ mode: 'full', strategy: undefined });
    expect(resolve(sealed, { role: 'agent' }).mode).toBe('masked');
    expect(resolve(sealed, {}).mode).toBe('masked');
    // redact and deny for the rehydrating caller restore nothing; allow gives everything.
    expect(resolve(sealed, { role: 'intern' }).mode).toBe('none');
    expect(resolve(sealed, { role: 'agent', purpose: 'outsourcing' }).mode).toBe('none');
    expect(resolve(sealed, { role: 'auditor' }).mode).toBe('full');
  });

  it('never widens past the floor sealed at transform (an override is the only way up)', () => {
    const sealed = { ...email, mode: 'masked' as const };
    expect(resolve(sealed, { role: 'supervisor' }).mode).toBe('masked');
    expect(resolve(sealed, { role: 'auditor' }).mode).toBe('masked');
    // override_restore_mode replaces the floor for its caller, as interface.md 4.3 says.
    expect(resolve(sealed, { role: 'reviewer' }).mode).toBe('partial');
    // The channel still clamps.
    expect(resolve({ ...email, mode: 'full' }, { role: 'supervisor' }, 'export').mode).toBe('masked');
  });

  it('keeps a partial strategy only when both sides agree, else masks', () => {
    const agentCard = { type: 'credit_card', value: '4111111111111111', mode: 'partial' as const, strategy: 'last4' };
    expect(resolve(agentCard, { role: 'agent' })).toEqual({ mode: 'partial', strategy: 'last4' });
    expect(resolve(agentCard, { role: 'other' })).toEqual({ mode: 'masked', strategy: undefined });
    // A full floor capped by a partial rule takes the rule's strategy.
    expect(resolve({ ...agentCard, mode: 'full', strategy: undefined }, { role: 'other' })).toEqual({ mode: 'partial', strategy: 'first2' });
  });

  it('re-decides with the destination the value was tokenized for', () => {
    const phone = { type: 'phone', value: '+14155550100', mode: 'full' as const };
    expect(resolve({ ...phone, destination: 'local_llm' }, { role: 'agent' }).mode).toBe('none');
    expect(resolve(phone, { role: 'agent' }).mode).toBe('full');
    expect(resolve({ ...phone, destination: 'local_llm' }, { role: 'supervisor' }).mode).toBe('full');
  });

  it('leaves policies without caller-dependent rules exactly as sealed', () => {
    const plain = compile(`${header}rules:\n  - {name: e, match: {entity_type: email}, action: tokenize, restore_mode: masked}\n`);
    expect(plain.callerDependent).toBe(false);
    expect(policy.callerDependent).toBe(true);
    // The sealed floor is used as is (even one the current rules would not give).
    expect(plain.resolveRestore({ entry: { ...email, mode: 'full', strategy: 's' }, caller: { role: 'x' }, channel: 'user_output' })).toEqual({ mode: 'full', strategy: 's' });
  });
});

describe('shipped policies on the engine', () => {
  const { policies, issues } = loadPolicyDirectory(fileURLToPath(new URL('../../../../policies/', import.meta.url)));
  const get = (name: string): CompiledPolicy => new CompiledPolicy(policies.get(name)!);

  it('all compile on the linear-time engine', () => {
    expect(issues).toEqual([]);
    for (const policy of policies.values()) expect(() => new CompiledPolicy(policy)).not.toThrow();
  });

  it('default: contact details full on user_output, cards partial, credentials never restored', () => {
    const policy = get('default');
    const resolve = (type: string): RestoreMode =>
      policy.resolveRestoreMode({ type, floor: policy.decide(type, {}, 'v').restore_mode, caller: {}, channel: 'user_output' });
    expect(resolve('email')).toBe('full');
    expect(resolve('person')).toBe('full');
    expect(resolve('credit_card')).toBe('partial');
    expect(resolve('password')).toBe('none');
    expect(resolve('api_key')).toBe('masked');
  });

  it('support-desk: denies SSNs to external models, passes own addresses, supervisors see emails', () => {
    const policy = get('support-desk');
    expect(policy.decide('us_ssn', { destination: 'external_llm' }, '123-45-6789').action).toBe('deny');
    expect(policy.decide('email', {}, 'help@support.acme.example').action).toBe('allow');
    expect(policy.decide('email', {}, 'customer@example.com').action).toBe('tokenize');
    expect(policy.decide('email', {}).action).toBe('tokenize');
    expect(policy.decide('custom:ticket_id', {}, 'TCK-123456').rule_matched).toBe('ticket-ids');
    expect(policy.resolveRestoreMode({ type: 'email', floor: 'full', caller: { role: 'supervisor', purpose: 'audit' }, channel: 'customer_email' })).toBe(
      'masked',
    );
    expect(policy.resolveRestoreMode({ type: 'email', floor: 'full', caller: { role: 'trainee' }, channel: 'user_output' })).toBe('abstract');
    expect(policy.channelCeiling('partner_portal')).toBe('partial');
  });

  it('healthcare: clinicians treating see record numbers in full, research sees labels', () => {
    const policy = get('healthcare');
    const mrn = policy.decide('custom:mrn', {}, 'MRN-12345678');
    expect(mrn).toMatchObject({ restore_mode: 'partial', restore_strategy: 'mrn_last3', protection_level: 'critical' });
    expect(policy.decide('custom:mrn', { destination: 'vector_store' }, 'MRN-12345678').action).toBe('deny');
    const clinician = { role: 'clinician', purpose: 'treatment' };
    expect(policy.resolveRestoreMode({ type: 'custom:mrn', floor: mrn.restore_mode, caller: clinician, channel: 'user_output' })).toBe('full');
    expect(policy.resolveRestoreMode({ type: 'custom:mrn', floor: mrn.restore_mode, caller: { purpose: 'research' }, channel: 'user_output' })).toBe('abstract');
    expect(policy.channelCeiling('research_export')).toBe('abstract');
  });
});
