// Offline validation of a custom resource against a CRD's openAPIV3Schema, the way the API
// server validates a create or update: the structural schema (ajv), strict field validation
// (unknown fields rejected, as kubectl's default --validate=strict does; the API server would
// otherwise prune them), list types (set: unique items; map: unique keys), formats, and the CEL
// rules (x-kubernetes-validations) through cel.ts, transition rules only against a correlated
// old object. Used by the CRD tests, the chart tests and the operator's API simulator, so all
// three enforce the committed crds/*.yaml rather than a copy of it.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { formatFieldPath, pointerToPath, type PathSegment } from '../policy/parse.js';
import { compileCelRule } from './cel.js';
import { parseYamlDocuments } from './portable-yaml.js';
import type { Schema } from './structural.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

export interface CrdValidationError {
  /** Field path as the API server writes it (`spec.policy.rules[0].action`; `(root)` for the object). */
  readonly path: string;
  readonly message: string;
}

export interface CrdValidationResult {
  readonly valid: boolean;
  readonly errors: readonly CrdValidationError[];
}

export interface CrdValidationOptions {
  /** The stored object on update: enables transition rules such as `self == oldSelf`. */
  readonly oldObject?: unknown;
}

export interface CompiledCrd {
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly scope: 'Namespaced' | 'Cluster';
  /** Served version names; the storage version first. */
  readonly versions: readonly string[];
  /** The openAPIV3Schema of a served version, as written in the CRD. */
  schemaOf(version: string): Schema | undefined;
  /** Every CEL rule string of a version (for checks that each one is evaluable offline). */
  celRulesOf(version: string): readonly string[];
  validate(object: unknown, options?: CrdValidationOptions): CrdValidationResult;
  /**
   * The object with every field its schema does not declare removed, as the API server prunes
   * them, and the paths removed (`spec.extra`). With `fieldValidation=Strict` the API server
   * refuses the request instead when `unknown` is not empty.
   */
  prune(object: unknown): { readonly object: unknown; readonly unknown: readonly string[] };
}

/** Drop what a structural schema does not declare (metadata is the API server's, left alone). */
function pruneNode(schema: Schema | undefined, value: unknown, path: readonly PathSegment[], unknown: string[]): unknown {
  if (schema === undefined || schema['x-kubernetes-preserve-unknown-fields'] === true) return value;
  if (Array.isArray(value)) {
    const items = isRecord(schema['items']) ? schema['items'] : undefined;
    return value.map((item, index) => pruneNode(items, item, [...path, index], unknown));
  }
  if (!isRecord(value)) return value;
  const properties = isRecord(schema['properties']) ? schema['properties'] : undefined;
  const additional = isRecord(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
  if (properties === undefined && additional === undefined) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (path.length === 0 && (key === 'metadata' || key === 'apiVersion' || key === 'kind')) {
      out[key] = child;
      continue;
    }
    const childSchema = properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : additional;
    if (!isRecord(childSchema)) {
      unknown.push(formatFieldPath([...path, key]));
      continue;
    }
    out[key] = pruneNode(childSchema, child, [...path, key], unknown);
  }
  return out;
}

function isRecord(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LIST_MAP_KEYWORD = 'k8sListMapKeys';

/** The CRD schema rewritten for ajv (draft-07) with Kubernetes semantics. */
function toAjvSchema(node: Schema, inJunctor: boolean): Schema {
  const out: Schema = {};
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case 'properties':
        out[key] = Object.fromEntries(Object.entries(value as Schema).map(([name, child]) => [name, toAjvSchema(child as Schema, inJunctor)]));
        break;
      case 'additionalProperties':
        out[key] = isRecord(value) ? toAjvSchema(value, inJunctor) : value;
        break;
      case 'items':
        out[key] = toAjvSchema(value as Schema, inJunctor);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        out[key] = (value as Schema[]).map((branch) => toAjvSchema(branch, true));
        break;
      case 'not':
        out[key] = toAjvSchema(value as Schema, true);
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        // OpenAPI 3.0 boolean form -> draft-07 number form.
        const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
        if (value === true && typeof node[bound] === 'number') out[key] = node[bound];
        break;
      }
      case 'minimum':
      case 'maximum': {
        const exclusive = key === 'minimum' ? 'exclusiveMinimum' : 'exclusiveMaximum';
        if (node[exclusive] !== true) out[key] = value;
        break;
      }
      case 'nullable':
        break; // applied with type below
      case 'x-kubernetes-list-type':
        if (value === 'set') out['uniqueItems'] = true;
        if (value === 'map') out[LIST_MAP_KEYWORD] = node['x-kubernetes-list-map-keys'] ?? [];
        break;
      case 'x-kubernetes-int-or-string':
        if (value === true && node['type'] === undefined) out['type'] = ['integer', 'string'];
        break;
      case 'x-kubernetes-list-map-keys':
      case 'x-kubernetes-validations':
      case 'x-kubernetes-preserve-unknown-fields':
      case 'x-kubernetes-embedded-resource':
      case 'x-kubernetes-map-type':
      case 'example':
      case 'externalDocs':
        break;
      default:
        out[key] = value;
    }
  }
  if (node['nullable'] === true && typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
  // Strict field validation: an object schema with properties rejects unknown fields. Not
  // inside junctors, whose `properties` only constrain fields declared outside.
  if (!inJunctor && isRecord(node['properties']) && node['additionalProperties'] === undefined && !preserve) out['additionalProperties'] = false;
  return out;
}

function schemaErrors(all: readonly ErrorObject[], data: unknown): CrdValidationError[] {
  // A failed anyOf/oneOf is reported once, not once per failed branch (as parse.ts does).
  const umbrellas = all.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf');
  const errors = all.filter(
    (error) => !umbrellas.some((umbrella) => umbrella !== error && error.schemaPath.startsWith(`${umbrella.schemaPath}/`) && error.instancePath.startsWith(umbrella.instancePath)),
  );
  const seen = new Set<string>();
  return errors.map((error): CrdValidationError => {
    const path = pointerToPath(error.instancePath, data);
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'required':
        return { path: formatFieldPath([...path, String(params['missingProperty'])]), message: 'Required value' };
      case 'additionalProperties': {
        const field = String(params['additionalProperty']);
        return /^[A-Za-z0-9_$-]{1,128}$/.test(field)
          ? { path: formatFieldPath([...path, field]), message: 'unknown field' }
          : { path: formatFieldPath(path), message: 'unknown field' };
      }
      case 'enum':
        return { path: formatFieldPath(path), message: `Unsupported value: must be one of ${(params['allowedValues'] as unknown[]).map((value) => JSON.stringify(value)).join(', ')}` };
      case 'uniqueItems':
        return { path: formatFieldPath(path), message: 'Duplicate value' };
      case LIST_MAP_KEYWORD:
        return { path: formatFieldPath(path), message: 'Duplicate value: list-map keys must be unique' };
      case 'anyOf':
      case 'oneOf':
        return { path: formatFieldPath(path), message: 'Invalid value: matches none of the allowed shapes' };
      default:
        return { path: formatFieldPath(path), message: error.message ?? 'Invalid value' };
    }
  }).filter((error) => {
    const key = `${error.path}\u0000${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function mapKey(item: unknown, keys: readonly string[]): string | undefined {
  if (!isRecord(item)) return undefined;
  return JSON.stringify(keys.map((key) => item[key]));
}

/** Walk schema and value together, evaluating every x-kubernetes-validations rule that applies. */
function celErrors(schema: Schema, value: unknown, old: { value: unknown } | undefined, path: PathSegment[], errors: CrdValidationError[]): void {
  const rules = schema['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    for (const entry of rules as Schema[]) {
      const rule = String(entry['rule']);
      const compiled = compileCelRule(rule);
      if (compiled === undefined) {
        errors.push({ path: formatFieldPath(path), message: `CEL rule cannot be evaluated offline: ${rule}` });
        continue;
      }
      if (compiled.transition && old === undefined) continue;
      if (!compiled.evaluate(value, old)) errors.push({ path: formatFieldPath(path), message: typeof entry['message'] === 'string' ? entry['message'] : `failed rule: ${rule}` });
    }
  }
  const oldValue = old?.value;
  if (isRecord(value)) {
    const properties = isRecord(schema['properties']) ? schema['properties'] : undefined;
    const additional = isRecord(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
    for (const [key, child] of Object.entries(value)) {
      const childSchema = properties !== undefined ? properties[key] : additional;
      if (!isRecord(childSchema)) continue;
      const childOld = isRecord(oldValue) && Object.hasOwn(oldValue, key) ? { value: oldValue[key] } : undefined;
      celErrors(childSchema, child, childOld, [...path, key], errors);
    }
  } else if (Array.isArray(value) && isRecord(schema['items'])) {
    const items = schema['items'];
    const mapKeys = schema['x-kubernetes-list-type'] === 'map' && Array.isArray(schema['x-kubernetes-list-map-keys']) ? (schema['x-kubernetes-list-map-keys'] as string[]) : undefined;
    const oldByKey = new Map<string, unknown>();
    if (mapKeys !== undefined && Array.isArray(oldValue)) {
      for (const item of oldValue) {
        const key = mapKey(item, mapKeys);
        if (key !== undefined) oldByKey.set(key, item);
      }
    }
    value.forEach((item, index) => {
      // Only list-map items correlate with an old item (the API server's rule); atomic and set lists do not.
      const key = mapKeys === undefined ? undefined : mapKey(item, mapKeys);
      const itemOld = key !== undefined && oldByKey.has(key) ? { value: oldByKey.get(key) } : undefined;
      celErrors(items, item, itemOld, [...path, index], errors);
    });
  }
}

function collectRules(schema: unknown, out: string[]): void {
  if (Array.isArray(schema)) {
    for (const item of schema) collectRules(item, out);
    return;
  }
  if (!isRecord(schema)) return;
  const rules = schema['x-kubernetes-validations'];
  if (Array.isArray(rules)) for (const rule of rules) if (isRecord(rule)) out.push(String(rule['rule']));
  for (const [key, child] of Object.entries(schema)) if (key !== 'x-kubernetes-validations') collectRules(child, out);
}

let sharedAjv: Ajv | undefined;

function ajv(): Ajv {
  if (sharedAjv === undefined) {
    sharedAjv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, strictTuples: false });
    addFormats(sharedAjv);
    sharedAjv.addKeyword({
      keyword: LIST_MAP_KEYWORD,
      type: 'array',
      schemaType: 'array',
      validate: (keys: readonly string[], data: readonly unknown[]) => {
        const seen = new Set<string>();
        for (const item of data) {
          const key = mapKey(item, keys);
          if (key === undefined) continue;
          if (seen.has(key)) return false;
          seen.add(key);
        }
        return true;
      },
      errors: false,
    });
  }
  return sharedAjv;
}

const compiledCache = new Map<string, CompiledCrd>();

/** Parse and compile a CRD (YAML text); cached by text. Throws when the text is not a usable CRD. */
export function compileCrd(crdYaml: string): CompiledCrd {
  const cached = compiledCache.get(crdYaml);
  if (cached !== undefined) return cached;
  // Read as the API server and kubectl read it: YAML 1.1, where a bare `n` is the boolean false.
  const document: unknown = parseYamlDocuments(crdYaml, '1.1')[0];
  if (!isRecord(document) || document['apiVersion'] !== 'apiextensions.k8s.io/v1' || document['kind'] !== 'CustomResourceDefinition' || !isRecord(document['spec'])) {
    throw new Error('compileCrd: not an apiextensions.k8s.io/v1 CustomResourceDefinition');
  }
  const spec = document['spec'];
  const names = isRecord(spec['names']) ? spec['names'] : {};
  const group = String(spec['group']);
  const kind = String(names['kind']);
  const versions = (Array.isArray(spec['versions']) ? spec['versions'] : []).filter(isRecord).filter((version) => version['served'] === true);
  versions.sort((a, b) => Number(b['storage'] === true) - Number(a['storage'] === true));
  const schemas = new Map<string, Schema>();
  const validators = new Map<string, ValidateFunction>();
  for (const version of versions) {
    const schema = isRecord(version['schema']) && isRecord(version['schema']['openAPIV3Schema']) ? version['schema']['openAPIV3Schema'] : undefined;
    if (schema === undefined) throw new Error(`compileCrd: version ${String(version['name'])} has no openAPIV3Schema`);
    schemas.set(String(version['name']), schema);
    validators.set(String(version['name']), ajv().compile(toAjvSchema(schema, false)));
  }
  const compiled: CompiledCrd = {
    group,
    kind,
    plural: String(names['plural']),
    scope: spec['scope'] === 'Cluster' ? 'Cluster' : 'Namespaced',
    versions: versions.map((version) => String(version['name'])),
    schemaOf: (version) => schemas.get(version),
    celRulesOf: (version) => {
      const out: string[] = [];
      collectRules(schemas.get(version), out);
      return out;
    },
    prune: (object) => {
      const apiVersion = isRecord(object) && typeof object['apiVersion'] === 'string' ? object['apiVersion'] : '';
      const schema = schemas.get(apiVersion.split('/')[1] ?? '');
      const unknown: string[] = [];
      return { object: pruneNode(schema, object, [], unknown), unknown };
    },
    validate: (object, options = {}) => {
      const errors: CrdValidationError[] = [];
      if (!isRecord(object)) return { valid: false, errors: [{ path: '(root)', message: 'must be an object' }] };
      const apiVersion = typeof object['apiVersion'] === 'string' ? object['apiVersion'] : '';
      const [objectGroup, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
      const validate = validators.get(version ?? '');
      if (objectGroup !== group || validate === undefined) errors.push({ path: 'apiVersion', message: `must be ${group}/<served version> (${[...validators.keys()].join(', ')})` });
      if (object['kind'] !== kind) errors.push({ path: 'kind', message: `must be ${kind}` });
      const metadata = object['metadata'];
      if (!isRecord(metadata)) errors.push({ path: 'metadata', message: 'Required value' });
      else if (typeof metadata['name'] !== 'string' || metadata['name'].length > 253 || !DNS_SUBDOMAIN.test(metadata['name'])) {
        errors.push({ path: 'metadata.name', message: 'must be a lowercase RFC 1123 subdomain of at most 253 characters' });
      }
      if (validate === undefined) return { valid: false, errors };
      if (!validate(object)) errors.push(...schemaErrors(validate.errors ?? [], object));
      const schema = schemas.get(version!)!;
      const old = options.oldObject === undefined ? undefined : { value: options.oldObject };
      celErrors(schema, object, old, [], errors);
      return { valid: errors.length === 0, errors };
    },
  };
  compiledCache.set(crdYaml, compiled);
  return compiled;
}

/**
 * Validate `object` (a whole custom resource) against the CRD in `crdYaml`, as the API server
 * would on create (no `oldObject`) or update (`oldObject` = the stored object).
 */
export function validateAgainstCrd(crdYaml: string, object: unknown, options: CrdValidationOptions = {}): CrdValidationResult {
  return compileCrd(crdYaml).validate(object, options);
}
