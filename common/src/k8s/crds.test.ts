// The generated CRDs: committed files equal a fresh render (drift), the schemas are structural
// and bounded, every CEL rule is one the offline validator can evaluate, and the printer columns
// point at fields that exist.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileCelRule } from './cel.js';
import { CRD_FILES, renderCrdFiles, veilCrds } from './crds.js';
import { structuralProblems, toStructuralSchema, type Schema } from './structural.js';
import { compileCrd } from './validate.js';

const repoRoot = new URL('../../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, repoRoot), 'utf8');

function versionOf(crd: Schema): Schema {
  const spec = crd['spec'] as Schema;
  return (spec['versions'] as Schema[])[0]!;
}

function schemaOf(crd: Schema): Schema {
  return (versionOf(crd)['schema'] as Schema)['openAPIV3Schema'] as Schema;
}

/** Every schema node with its path (properties, items, additionalProperties; not junctors). */
function nodes(schema: Schema, path = ''): [string, Schema][] {
  const out: [string, Schema][] = [[path || '(root)', schema]];
  const properties = schema['properties'] as Record<string, Schema> | undefined;
  for (const [name, child] of Object.entries(properties ?? {})) out.push(...nodes(child, `${path}.${name}`));
  if (schema['items'] !== undefined) out.push(...nodes(schema['items'] as Schema, `${path}[]`));
  if (typeof schema['additionalProperties'] === 'object') out.push(...nodes(schema['additionalProperties'] as Schema, `${path}.*`));
  return out;
}

/** True when an anchored pattern has no unbounded quantifier, so it bounds the string length. */
function patternBoundsLength(pattern: string): boolean {
  return pattern.startsWith('^') && pattern.endsWith('$') && !/[*+]|\{\d+,\}/.test(pattern.replace(/\\./g, ''));
}

describe('generated CRDs', () => {
  it('the committed crds/ and charts/veil/crds/ files equal a fresh render (run `npm run crds` after a schema change)', () => {
    const files = renderCrdFiles();
    expect(Object.keys(files).sort()).toEqual([...CRD_FILES.TokenizationPolicy, ...CRD_FILES.Tenant].sort());
    for (const [path, content] of Object.entries(files)) expect(read(path), path).toBe(content);
  });

  for (const [kind, crd] of Object.entries(veilCrds())) {
    describe(kind, () => {
      const schema = schemaOf(crd);

      it('is a structural schema', () => {
        expect(structuralProblems(schema)).toEqual([]);
      });

      it('bounds every string, list and map', () => {
        const unbounded: string[] = [];
        for (const [path, node] of nodes(schema)) {
          if (path === '.metadata') continue; // validated by the API server itself
          const type = node['type'];
          if (type === 'string' && node['maxLength'] === undefined && node['enum'] === undefined && !(typeof node['pattern'] === 'string' && patternBoundsLength(node['pattern']))) {
            unbounded.push(path);
          }
          if (type === 'array' && node['maxItems'] === undefined) unbounded.push(path);
          if (type === 'object' && node['additionalProperties'] !== undefined && node['maxProperties'] === undefined) unbounded.push(path);
        }
        expect(unbounded).toEqual([]);
      });

      it('has a status subresource and printer columns over existing fields', () => {
        const version = versionOf(crd);
        expect(version['subresources']).toEqual({ status: {} });
        const columns = version['additionalPrinterColumns'] as { name: string; jsonPath: string }[];
        expect(columns.length).toBeGreaterThanOrEqual(4);
        const paths = new Set(nodes(schema).map(([path]) => path));
        for (const column of columns) {
          if (column.jsonPath === '.metadata.creationTimestamp') continue;
          const field = column.jsonPath.replace(/\[\?\(@\.type=="[A-Za-z]+"\)\]/, '[]');
          expect(paths.has(field), `${column.name}: ${column.jsonPath}`).toBe(true);
        }
      });

      it('uses only CEL rules the offline validator evaluates', () => {
        const compiled = compileCrd(read(CRD_FILES[kind as keyof typeof CRD_FILES][0]!));
        const rules = compiled.celRulesOf('v1alpha1');
        expect(rules.length).toBeGreaterThan(0);
        for (const rule of rules) expect(compileCelRule(rule), rule).toBeDefined();
      });
    });
  }

  it('declares the invariants as CEL: immutable tenantId, rotation period minimum, policy name = resource name', () => {
    const tenant = schemaOf(veilCrds().Tenant);
    const spec = (tenant['properties'] as Record<string, Schema>)['spec']!;
    const specProperties = spec['properties'] as Record<string, Schema>;
    expect(specProperties['tenantId']!['x-kubernetes-validations']).toEqual([{ rule: 'self == oldSelf', message: 'tenantId is immutable' }]);
    const sessionKeys = specProperties['sessionKeys']!['properties'] as Record<string, Schema>;
    expect(sessionKeys['rotationPeriod']!['x-kubernetes-validations']).toEqual([{ rule: "duration(self) >= duration('1h')", message: 'rotationPeriod must be at least 1h' }]);
    const policy = schemaOf(veilCrds().TokenizationPolicy);
    expect(policy['x-kubernetes-validations']).toEqual([{ rule: 'self.metadata.name == self.spec.policy.name', message: 'spec.policy.name must equal metadata.name' }]);
  });
});

describe('structural checks and the schema transformer', () => {
  it('flags what the API server refuses', () => {
    const problems = structuralProblems({
      type: 'object',
      properties: {
        ref: { $ref: '#/x' },
        closed: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
        untyped: { maxLength: 3 },
        unique: { type: 'array', uniqueItems: true, items: { type: 'string' } },
        kind: { type: 'string' },
      },
      anyOf: [{ type: 'object' }, { properties: { other: { enum: ['x'] } } }],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('keyword $ref'),
        expect.stringContaining('additionalProperties false'),
        expect.stringContaining('.untyped: type is required'),
        expect.stringContaining('uniqueItems cannot be true'),
        expect.stringContaining('type is not allowed inside a logical junctor'),
        expect.stringContaining('property other inside a junctor must also be specified outside'),
      ]),
    );
  });

  it('throws on a JSON Schema construct it has no faithful mapping for', () => {
    expect(() => toStructuralSchema({ type: 'object', properties: { a: { type: 'string', format: 'email', contentEncoding: 'base64' } } })).toThrow(/contentEncoding/);
    expect(() => toStructuralSchema({ type: 'array', uniqueItems: true, items: { type: 'object', properties: {} } })).toThrow(/non-scalar/);
    expect(() => toStructuralSchema({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })).toThrow(/unresolvable/);
    expect(() => toStructuralSchema({ type: 'object', patternProperties: { '^a': { type: 'string' } } })).toThrow(/patternProperties/);
    // An if/then set that leaves a discriminator value without a branch cannot be hoisted exactly.
    expect(() =>
      toStructuralSchema({
        type: 'object',
        required: ['kind'],
        properties: { kind: { enum: ['a', 'b'] } },
        allOf: [{ if: { required: ['kind'], properties: { kind: { const: 'a' } } }, then: { additionalProperties: false, required: ['kind'], properties: { kind: true } } }],
      }),
    ).toThrow(/every value of kind/);
  });

  it('maps const, exclusiveMinimum, uniqueItems and propertyNames', () => {
    const out = toStructuralSchema({
      type: 'object',
      properties: {
        fixed: { const: 'x' },
        rate: { type: 'number', exclusiveMinimum: 0 },
        tags: { type: 'array', uniqueItems: true, items: { type: 'string', maxLength: 8 } },
        labels: { type: 'object', maxProperties: 4, propertyNames: { pattern: '^[a-z]+$', maxLength: 8 }, additionalProperties: { type: 'string', maxLength: 8 } },
      },
      additionalProperties: false,
    });
    const properties = out['properties'] as Record<string, Schema>;
    expect(out['additionalProperties']).toBeUndefined();
    expect(properties['fixed']).toEqual({ type: 'string', enum: ['x'] });
    expect(properties['rate']).toEqual({ type: 'number', minimum: 0, exclusiveMinimum: true });
    expect(properties['tags']!['x-kubernetes-list-type']).toBe('set');
    expect(properties['labels']!['x-kubernetes-validations']).toEqual([
      { rule: "self.all(k, k.matches('^[a-z]+$') && size(k) <= 8)", message: 'keys must match ^[a-z]+$ and be at most 8 characters' },
    ]);
  });
});
