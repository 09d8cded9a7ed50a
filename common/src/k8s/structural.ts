// Turns a JSON Schema (draft 2020-12, as the policy schema is written) into a Kubernetes
// structural OpenAPI v3 schema, and checks that a schema is structural. The CRD must carry the
// exact schema the server validates policies with, but a CRD schema forbids $ref/$defs,
// if/then, const, propertyNames, uniqueItems and additionalProperties next to properties, and
// requires a type on every node outside logical junctors. Each construct is mapped to an
// equivalent one, and anything this file does not know how to map throws, so a change to the
// policy schema cannot silently weaken the CRD:
//
//   $ref                      inlined (siblings such as description override the target's)
//   const v                   enum [v]
//   uniqueItems: true         x-kubernetes-list-type: set (scalar items; the API server rejects duplicates)
//   additionalProperties:false dropped: structural schemas prune unknown fields, and strict field
//                             validation (kubectl's default, and validateAgainstCrd) rejects them
//   propertyNames {pattern, maxLength}  a CEL rule over the map's keys
//   allOf [{if: kind == v, then: closed branch}]  the branches' properties hoisted to the object,
//                             each branch becomes anyOf [not(kind == v), {required, not(anyOf
//                             [required: other fields])}]: exact when the discriminator enum is
//                             covered by the branches and every branch is closed (checked)
//   exclusiveMinimum n        minimum n + exclusiveMinimum: true (OpenAPI 3.0 form)
import { mapKeysRule, type CelRule } from './cel.js';

export type Schema = Record<string, unknown>;

const DROPPED_AT_ROOT = new Set(['$schema', '$id', '$defs', 'title']);
const COPIED = new Set(['description', 'type', 'enum', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'required', 'multipleOf', 'format', 'default']);
/** Value validations allowed inside allOf/anyOf/oneOf/not of a structural schema. */
const JUNCTOR_COPIED = new Set(['enum', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'required', 'multipleOf', 'format']);

function isRecord(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isRecord(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`).join(',')}}`;
  return JSON.stringify(value);
}

function inferType(values: readonly unknown[], where: string): string {
  const types = new Set(values.map((value) => (typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value)));
  if (types.size === 1) {
    const only = [...types][0]!;
    if (only === 'string' || only === 'boolean' || only === 'integer' || only === 'number') return only;
  }
  if ([...types].every((type) => type === 'integer' || type === 'number')) return 'number';
  throw new Error(`${where}: cannot infer a single type for enum/const`);
}

/** Convert `schema` (with its `$defs`) to a structural schema; CEL rules created on the way are attached to their nodes. */
export function toStructuralSchema(schema: Schema): Schema {
  const defs = isRecord(schema['$defs']) ? schema['$defs'] : {};

  const resolve = (node: Schema, where: string): Schema => {
    let current: Schema = { ...node };
    for (let depth = 0; typeof current['$ref'] === 'string'; depth += 1) {
      if (depth > 32) throw new Error(`${where}: $ref chain too deep`);
      const ref = current['$ref'];
      const match = /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref);
      const target = match === null ? undefined : defs[match[1]!];
      if (!isRecord(target)) throw new Error(`${where}: unresolvable $ref ${ref}`);
      const { $ref: _ref, ...siblings } = current;
      for (const key of Object.keys(siblings)) {
        if (key !== 'description' && Object.hasOwn(target, key)) throw new Error(`${where}: $ref sibling ${key} conflicts with the target`);
      }
      current = { ...target, ...siblings };
    }
    return current;
  };

  const convertJunctor = (raw: unknown, where: string): Schema => {
    if (!isRecord(raw)) throw new Error(`${where}: boolean schemas are not supported inside junctors`);
    const node = resolve(raw, where);
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'description') continue; // not allowed inside junctors; documentation only
      if (JUNCTOR_COPIED.has(key)) out[key] = value;
      else if (key === 'const') out['enum'] = [value];
      else if (key === 'properties' && isRecord(value)) {
        out['properties'] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, convertJunctor(child, `${where}.${name}`)]));
      } else if (key === 'items') out['items'] = convertJunctor(value, `${where}[]`);
      else if (key === 'anyOf' || key === 'allOf' || key === 'oneOf') {
        if (!Array.isArray(value)) throw new Error(`${where}: ${key} must be a list`);
        out[key] = value.map((branch, index) => convertJunctor(branch, `${where}.${key}[${index}]`));
      } else if (key === 'not') out['not'] = convertJunctor(value, `${where}.not`);
      else throw new Error(`${where}: keyword ${key} is not supported inside a junctor`);
    }
    return out;
  };

  const convert = (raw: unknown, where: string, isRoot: boolean): Schema => {
    if (!isRecord(raw)) throw new Error(`${where}: boolean schemas are not supported here`);
    const node = resolve(raw, where);
    const out: Schema = {};
    const rules: CelRule[] = [];
    const conditional: unknown[] = [];
    let properties: Record<string, Schema> | undefined;

    for (const [key, value] of Object.entries(node)) {
      if (isRoot && DROPPED_AT_ROOT.has(key)) continue;
      if (COPIED.has(key)) out[key] = value;
      else if (key === 'const') out['enum'] = [value];
      else if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') {
        if (typeof value !== 'number') throw new Error(`${where}: ${key} must be a number (draft 2020-12)`);
        const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
        if (Object.hasOwn(node, bound)) throw new Error(`${where}: both ${key} and ${bound}`);
        out[bound] = value;
        out[key] = true;
      } else if (key === 'uniqueItems') {
        if (value === true) out['x-kubernetes-list-type'] = 'set';
      } else if (key === 'items') out['items'] = convert(value, `${where}[]`, false);
      else if (key === 'properties') {
        if (!isRecord(value)) throw new Error(`${where}: properties must be a mapping`);
        properties = {};
        for (const [name, child] of Object.entries(value)) {
          if (child === true) continue; // "allowed, unconstrained": only meaningful in closed if/then branches
          properties[name] = convert(child, `${where}.${name}`, false);
        }
      } else if (key === 'additionalProperties') {
        if (value === false) {
          if (!isRecord(node['properties'])) throw new Error(`${where}: additionalProperties false without properties`);
        } else out['additionalProperties'] = convert(value, `${where}.*`, false);
      } else if (key === 'propertyNames') {
        const names = isRecord(value) ? resolve(value, `${where}(keys)`) : undefined;
        const extra = names === undefined ? ['(not a schema)'] : Object.keys(names).filter((name) => !['type', 'pattern', 'minLength', 'maxLength', 'description'].includes(name));
        if (names === undefined || extra.length > 0 || typeof names['pattern'] !== 'string' || typeof names['maxLength'] !== 'number') {
          throw new Error(`${where}: propertyNames must be a string schema with pattern and maxLength only`);
        }
        // minLength is implied: a pattern with + (as the label pattern) never matches the empty key.
        const minLength = typeof names['minLength'] === 'number' ? names['minLength'] : 0;
        if (minLength > 1 || (minLength === 1 && new RegExp(names['pattern'], 'u').test(''))) throw new Error(`${where}: propertyNames minLength not expressible`);
        rules.push(mapKeysRule(names['pattern'], names['maxLength'], `keys must match ${names['pattern']} and be at most ${names['maxLength']} characters`));
      } else if (key === 'anyOf' || key === 'oneOf') {
        if (!Array.isArray(value)) throw new Error(`${where}: ${key} must be a list`);
        out[key] = value.map((branch, index) => convertJunctor(branch, `${where}.${key}[${index}]`));
      } else if (key === 'allOf') {
        if (!Array.isArray(value)) throw new Error(`${where}: allOf must be a list`);
        conditional.push(...(value as unknown[]));
      } else if (key === 'if' || key === 'then' || key === 'else') {
        throw new Error(`${where}: if/then is only supported as allOf branches`);
      } else if (!(isRoot && DROPPED_AT_ROOT.has(key))) {
        throw new Error(`${where}: keyword ${key} has no CRD mapping`);
      }
    }

    if (conditional.length > 0) {
      const lowered = lowerDiscriminatedBranches(conditional, properties ?? {}, node, where, (child, path) => convert(child, path, false));
      properties = lowered.properties;
      out['allOf'] = lowered.allOf;
    }
    if (properties !== undefined) out['properties'] = properties;
    if (out['type'] === undefined) {
      if (Array.isArray(out['enum'])) out['type'] = inferType(out['enum'], where);
      else if (properties !== undefined || out['additionalProperties'] !== undefined) out['type'] = 'object';
      else if (out['items'] !== undefined) out['type'] = 'array';
      else throw new Error(`${where}: no type (structural schemas need one)`);
    }
    if (out['x-kubernetes-list-type'] === 'set') {
      const items = out['items'];
      if (!isRecord(items) || !['string', 'integer', 'number', 'boolean'].includes(String(items['type']))) {
        throw new Error(`${where}: uniqueItems on non-scalar items has no CRD mapping`);
      }
    }
    if (rules.length > 0) out['x-kubernetes-validations'] = rules;
    return orderKeys(out);
  };

  return convert(schema, '(root)', true);
}

/** The if/then lowering described in the header. */
function lowerDiscriminatedBranches(
  branches: readonly unknown[],
  outer: Record<string, Schema>,
  node: Schema,
  where: string,
  convert: (child: unknown, where: string) => Schema,
): { properties: Record<string, Schema>; allOf: Schema[] } {
  const parsed = branches.map((branch, index) => {
    const at = `${where}.allOf[${index}]`;
    if (!isRecord(branch) || !isRecord(branch['if']) || !isRecord(branch['then']) || Object.keys(branch).some((key) => key !== 'if' && key !== 'then')) {
      throw new Error(`${at}: only {if, then} branches are supported in allOf`);
    }
    const condition = branch['if'];
    const required = condition['required'];
    const conditionProperties = condition['properties'];
    const discriminator = Array.isArray(required) && required.length === 1 ? String(required[0]) : undefined;
    const expected = discriminator !== undefined && isRecord(conditionProperties) ? conditionProperties[discriminator] : undefined;
    if (discriminator === undefined || !isRecord(expected) || Object.keys(expected).join() !== 'const' || Object.keys(condition).length !== 2 || Object.keys(conditionProperties as Schema).length !== 1) {
      throw new Error(`${at}.if: must be {required: [field], properties: {field: {const: value}}}`);
    }
    const then = branch['then'];
    if (then['additionalProperties'] !== false || !isRecord(then['properties']) || Object.keys(then).some((key) => !['additionalProperties', 'required', 'properties'].includes(key))) {
      throw new Error(`${at}.then: must be a closed branch {additionalProperties: false, required, properties}`);
    }
    return { at, discriminator, value: expected['const'], required: (then['required'] ?? []) as string[], properties: then['properties'] };
  });

  const discriminator = parsed[0]!.discriminator;
  if (parsed.some((branch) => branch.discriminator !== discriminator)) throw new Error(`${where}: branches use different discriminators`);
  const discriminatorSchema = outer[discriminator];
  const values = Array.isArray(discriminatorSchema?.['enum']) ? (discriminatorSchema['enum'] as unknown[]) : undefined;
  if (values === undefined || !(Array.isArray(node['required']) && (node['required'] as unknown[]).includes(discriminator))) {
    throw new Error(`${where}: the discriminator ${discriminator} must be required and have an enum`);
  }
  const covered = new Set(parsed.map((branch) => stableJson(branch.value)));
  if (values.length !== covered.size || values.some((value) => !covered.has(stableJson(value)))) {
    throw new Error(`${where}: every value of ${discriminator} needs exactly one branch (hoisting is exact only then)`);
  }

  const properties: Record<string, Schema> = { ...outer };
  for (const branch of parsed) {
    for (const [name, child] of Object.entries(branch.properties)) {
      if (child === true) {
        if (!Object.hasOwn(outer, name)) throw new Error(`${branch.at}: ${name}: true needs an outer schema`);
        continue;
      }
      const converted = convert(child, `${branch.at}.then.${name}`);
      const existing = properties[name];
      if (existing !== undefined && stableJson(existing) !== stableJson(converted)) throw new Error(`${branch.at}: ${name} differs between branches`);
      properties[name] = converted;
    }
  }

  const allOf = parsed.map((branch): Schema => {
    const allowed = new Set(Object.keys(branch.properties));
    const forbidden = Object.keys(properties).filter((name) => !allowed.has(name));
    const then: Schema = { required: [...branch.required] };
    if (forbidden.length > 0) then['not'] = { anyOf: forbidden.map((name) => ({ required: [name] })) };
    return { anyOf: [{ not: { required: [discriminator], properties: { [discriminator]: { enum: [branch.value] } } } }, then] };
  });
  return { properties, allOf };
}

const KEY_ORDER = ['description', 'type', 'format', 'enum', 'default', 'minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'required', 'properties', 'additionalProperties', 'items'];

/** Stable, readable key order for the generated YAML. */
function orderKeys(node: Schema): Schema {
  const keys = Object.keys(node).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((key) => [key, node[key]]));
}

function rank(key: string): number {
  const index = KEY_ORDER.indexOf(key);
  return index >= 0 ? index : KEY_ORDER.length;
}

// ---------------------------------------------------------------------------------------------
// Structural check

/** Keywords a CRD schema may use at all (apiextensions.k8s.io/v1 JSONSchemaProps, minus the forbidden ones). */
const CRD_KEYWORDS = new Set([
  ...COPIED,
  'title',
  'example',
  'externalDocs',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'properties',
  'additionalProperties',
  'items',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);
const FORBIDDEN_IN_JUNCTOR = new Set(['type', 'description', 'default', 'additionalProperties', 'nullable', 'title']);

/**
 * Problems that would make the API server reject `schema` as a structural CRD schema (the rules
 * of "Specifying a structural schema" plus the keyword restrictions of apiextensions/v1). An
 * empty list means structural. Covers what the generated CRDs can contain; it is not a full
 * reimplementation of the API server's checks.
 */
export function structuralProblems(schema: Schema): string[] {
  const problems: string[] = [];
  const visit = (node: unknown, path: string, inJunctor: boolean, outerProperties: ReadonlySet<string> | undefined): void => {
    if (!isRecord(node)) {
      problems.push(`${path}: must be a schema object`);
      return;
    }
    for (const key of Object.keys(node)) {
      if (!CRD_KEYWORDS.has(key)) problems.push(`${path}: keyword ${key} is not allowed in a CRD schema`);
      if (inJunctor && (FORBIDDEN_IN_JUNCTOR.has(key) || key.startsWith('x-kubernetes-'))) problems.push(`${path}: ${key} is not allowed inside a logical junctor`);
    }
    if (node['uniqueItems'] === true) problems.push(`${path}: uniqueItems cannot be true`);
    const preserve = node['x-kubernetes-preserve-unknown-fields'] === true || node['x-kubernetes-int-or-string'] === true;
    if (!inJunctor && node['type'] === undefined && !preserve) problems.push(`${path}: type is required`);
    if (node['properties'] !== undefined && node['additionalProperties'] !== undefined) problems.push(`${path}: properties and additionalProperties are mutually exclusive`);
    if (node['type'] === 'array' && !inJunctor && node['items'] === undefined) problems.push(`${path}: arrays need items`);
    const listType = node['x-kubernetes-list-type'];
    if (listType !== undefined) {
      if (typeof listType !== 'string' || !['atomic', 'set', 'map'].includes(listType)) problems.push(`${path}: unknown x-kubernetes-list-type`);
      const items = isRecord(node['items']) ? node['items'] : {};
      if (listType === 'set' && !['string', 'integer', 'number', 'boolean'].includes(String(items['type']))) problems.push(`${path}: list-type set needs scalar items`);
      if (listType === 'map') {
        const keys = node['x-kubernetes-list-map-keys'];
        const required = Array.isArray(items['required']) ? (items['required'] as unknown[]) : [];
        if (!Array.isArray(keys) || keys.length === 0 || keys.some((key) => !required.includes(key))) problems.push(`${path}: list-map-keys must be required item fields`);
      }
    }
    const validations = node['x-kubernetes-validations'];
    if (validations !== undefined && (!Array.isArray(validations) || validations.some((rule) => !isRecord(rule) || typeof rule['rule'] !== 'string'))) {
      problems.push(`${path}: x-kubernetes-validations must be a list of {rule, message}`);
    }
    const ownProperties = isRecord(node['properties']) ? new Set(Object.keys(node['properties'])) : undefined;
    if (inJunctor && ownProperties !== undefined) {
      for (const name of ownProperties) if (!outerProperties?.has(name)) problems.push(`${path}: property ${name} inside a junctor must also be specified outside`);
    }
    if (isRecord(node['properties'])) {
      for (const [name, child] of Object.entries(node['properties'])) visit(child, `${path}.${name}`, inJunctor, undefined);
    }
    if (isRecord(node['additionalProperties'])) visit(node['additionalProperties'], `${path}.*`, inJunctor, undefined);
    else if (node['additionalProperties'] === false) problems.push(`${path}: additionalProperties false is not allowed (unknown fields are pruned)`);
    if (node['items'] !== undefined) visit(node['items'], `${path}[]`, inJunctor, undefined);
    for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
      const branches = node[junctor];
      if (branches === undefined) continue;
      if (!Array.isArray(branches)) problems.push(`${path}: ${junctor} must be a list`);
      else branches.forEach((branch, index) => visit(branch, `${path}.${junctor}[${index}]`, true, ownProperties ?? outerProperties));
    }
    if (node['not'] !== undefined) visit(node['not'], `${path}.not`, true, ownProperties ?? outerProperties);
  };
  visit(schema, '(root)', false, undefined);
  return problems;
}
