// The offline CEL evaluator for the rule templates the CRDs use, Go durations, rotation periods
// and the chart -> operator settings parser.
import { describe, expect, it } from 'vitest';
import { compileCelRule, fieldsEqualRule, immutableRule, mapKeysRule, minDurationRule, parseGoDuration } from './cel.js';
import { parseRotationPeriod } from './duration.js';
import { OPERATOR_ENV, parseOperatorSettings } from './operator-settings.js';

function evaluate(rule: string, self: unknown, old?: unknown): boolean {
  const compiled = compileCelRule(rule);
  if (compiled === undefined) throw new Error(`not compiled: ${rule}`);
  return compiled.evaluate(self, old === undefined ? undefined : { value: old });
}

describe('CEL rule templates', () => {
  it('self == oldSelf is a transition rule comparing deeply', () => {
    const { rule } = immutableRule('immutable');
    expect(compileCelRule(rule)?.transition).toBe(true);
    expect(evaluate(rule, 'acme', 'acme')).toBe(true);
    expect(evaluate(rule, 'acme', 'other')).toBe(false);
    expect(evaluate(rule, { a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(evaluate(rule, { a: [1, { b: 2 }] }, { a: [1, { b: 3 }] })).toBe(false);
    expect(evaluate(rule, 'acme')).toBe(true); // no old value: not evaluated (create)
  });

  it('map keys: pattern and size in code points, quotes and backslashes escaped', () => {
    const { rule } = mapKeysRule("^[a-z'\\\\]+$", 3, 'keys');
    expect(rule).toBe("self.all(k, k.matches('^[a-z\\'\\\\\\\\]+$') && size(k) <= 3)");
    expect(evaluate(rule, { ab: 1, "a'": 2, 'a\\': 3 })).toBe(true);
    expect(evaluate(rule, { abcd: 1 })).toBe(false);
    expect(evaluate(rule, { A: 1 })).toBe(false);
    expect(evaluate(rule, {})).toBe(true);
  });

  it('minimum duration uses Go duration syntax', () => {
    const { rule } = minDurationRule('1h', 'min');
    expect(evaluate(rule, '1h')).toBe(true);
    expect(evaluate(rule, '59m59s')).toBe(false);
    expect(evaluate(rule, '720h')).toBe(true);
    expect(evaluate(rule, 'soon')).toBe(false);
    expect(evaluate(rule, 3600)).toBe(false);
  });

  it('field equality fails when a side is missing', () => {
    const { rule } = fieldsEqualRule('metadata.name', 'spec.policy.name', 'eq');
    expect(evaluate(rule, { metadata: { name: 'a' }, spec: { policy: { name: 'a' } } })).toBe(true);
    expect(evaluate(rule, { metadata: { name: 'a' }, spec: { policy: { name: 'b' } } })).toBe(false);
    expect(evaluate(rule, { metadata: { name: 'a' }, spec: {} })).toBe(false);
  });

  it('refuses rules outside the templates instead of accepting them', () => {
    expect(compileCelRule('self.size() > 2')).toBeUndefined();
    expect(compileCelRule("duration(self) >= duration('soon')")).toBeUndefined();
  });

  it('parses Go durations', () => {
    expect(parseGoDuration('1h30m')).toBe(5400);
    expect(parseGoDuration('1.5h')).toBe(5400);
    expect(parseGoDuration('300ms')).toBeCloseTo(0.3);
    expect(parseGoDuration('-2m')).toBe(-120);
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('1d')).toBeUndefined();
    expect(parseGoDuration('')).toBeUndefined();
    expect(parseGoDuration('h')).toBeUndefined();
  });
});

describe('rotation period', () => {
  it('accepts hours, minutes and seconds from 1h', () => {
    expect(parseRotationPeriod('720h')).toBe(720 * 3600);
    expect(parseRotationPeriod('1h30m')).toBe(5400);
    expect(parseRotationPeriod('90m')).toBe(5400);
    expect(parseRotationPeriod('3600s')).toBe(3600);
  });

  it('rejects what the CRD rejects', () => {
    for (const text of ['', '59m', '1d', '1.5h', 'PT1H', '1h 30m', '30m1h', '-1h']) expect(parseRotationPeriod(text), text).toBeUndefined();
  });
});

describe('operator settings', () => {
  it('fills defaults and requires the namespace', () => {
    expect(parseOperatorSettings({}).problems).toEqual([`${OPERATOR_ENV.namespace}: is required`]);
    const { settings } = parseOperatorSettings({ [OPERATOR_ENV.namespace]: 'veil' });
    expect(settings).toEqual({
      namespace: 'veil',
      policyConfigMap: 'veil-policies',
      keyRingSecret: 'veil-keyrings',
      apiKeysSecret: 'veil-api-keys',
      tenantKeysNamespace: 'veil-tenant-keys',
      tenantsConfigMap: 'veil-tenants',
      serverSelector: 'app.kubernetes.io/name=veil,app.kubernetes.io/component=server',
      serverPort: 3000,
      sessionTtlSeconds: 3600,
      nerName: 'veil-ner',
      nerReplicas: 1,
      nerPort: 8001,
      leaseName: 'veil-operator',
      healthPort: 8080,
    });
  });

  it('lists every bad variable at once', () => {
    const { settings, problems } = parseOperatorSettings({
      [OPERATOR_ENV.namespace]: 'Bad_NS',
      [OPERATOR_ENV.serverPort]: '70000',
      [OPERATOR_ENV.nerReplicas]: '-1',
      [OPERATOR_ENV.serverApiKeyFile]: 'relative/key',
    });
    expect(settings).toBeUndefined();
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toContain(OPERATOR_ENV.serverApiKeyFile);
  });

  it('reads the optional NER image and API key file', () => {
    const { settings } = parseOperatorSettings({ [OPERATOR_ENV.namespace]: 'veil', [OPERATOR_ENV.nerImage]: 'ghcr.io/veil/ner:1', [OPERATOR_ENV.serverApiKeyFile]: '/var/run/veil/key' });
    expect(settings?.nerImage).toBe('ghcr.io/veil/ner:1');
    expect(settings?.serverApiKeyFile).toBe('/var/run/veil/key');
  });

  it('takes the tenant-keys namespace as set, else derives it from the namespace', () => {
    expect(parseOperatorSettings({ [OPERATOR_ENV.namespace]: 'veil', [OPERATOR_ENV.tenantKeysNamespace]: 'keys' }).settings?.tenantKeysNamespace).toBe('keys');
    expect(parseOperatorSettings({ [OPERATOR_ENV.namespace]: 'a'.repeat(60) }).settings?.tenantKeysNamespace).toBe(`${'a'.repeat(60)}-te`);
    expect(parseOperatorSettings({ [OPERATOR_ENV.namespace]: 'veil', [OPERATOR_ENV.tenantKeysNamespace]: 'Bad' }).problems).toEqual([`${OPERATOR_ENV.tenantKeysNamespace}: must match ${String(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/)}`]);
  });
});
