// Policy file parsing and validation: YAML with source positions, the published JSON Schema
// (ajv, every error at once), then the semantic rules JSON Schema cannot express. Every issue
// names the file, the 1-based line and the field path (`rules[2].restore_mode`). One run lists
// every problem of a file: the semantic checks rely on the schema's shape, so on a document
// that failed the schema they run over its schema-valid parts only (usableParts: a rule, a
// strategy, a pattern that failed is left out, the others are checked).
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { BUILTIN_CHANNEL_CEILINGS, isBuiltinChannel, modeRank } from './modes.js';
import { canonicalEntityType, isBuiltinEntityType, CUSTOM_TYPE_PREFIX } from './entity-types.js';
import { checkPattern } from './patterns.js';
import { POLICY_SCHEMA } from './schema.js';
import type { Policy, PolicyIssue, RestoreStrategy } from './types.js';

export type PathSegment = string | number;

/** A problem located by field path only (no file or line yet). */
export interface FieldProblem {
  readonly path: readonly PathSegment[];
  readonly message: string;
}

/** Render a path as `rules[2].match.entity_type`; the empty path is `(root)`. */
export function formatFieldPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? '(root)' : out;
}

/** `file:line: field: message`, the form the CLI and the admin API print. */
export function formatPolicyIssue(issue: PolicyIssue): string {
  const where = issue.line === undefined ? issue.file : `${issue.file}:${issue.line}`;
  return `${where}: ${issue.field}: ${issue.message}`;
}

// ---------------------------------------------------------------------------------------------
// Source positions

/** Finds the line of a field path inside the parsed YAML document. */
class Locator {
  constructor(
    private readonly document: Document,
    private readonly lines: LineCounter,
  ) {}

  private lineOf(offset: number): number {
    return this.lines.linePos(offset).line;
  }

  /** Walk the path; returns the deepest node reached and, when the last step was a map key, its key node. */
  private walk(path: readonly PathSegment[]): { node: unknown; key: unknown } {
    let node: unknown = this.document.contents;
    let key: unknown = undefined;
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
        if (pair === undefined) break;
        key = pair.key;
        node = pair.value;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item: unknown = node.items[segment];
        if (item === undefined) break;
        key = undefined;
        node = item;
      } else {
        break;
      }
    }
    return { node, key };
  }

  private rangeLine(node: unknown): number | undefined {
    if (node !== null && typeof node === 'object' && 'range' in node) {
      const range = (node as { range?: readonly number[] | null }).range;
      if (range?.[0] !== undefined) return this.lineOf(range[0]);
    }
    return undefined;
  }

  /** Line of the value at `path` (or of its key when the value has no position). */
  valueLine(path: readonly PathSegment[]): number {
    const { node, key } = this.walk(path);
    return this.rangeLine(node) ?? this.rangeLine(key) ?? 1;
  }

  /** Line of the key `name` in the map at `path`. */
  keyLine(path: readonly PathSegment[], name: string): number {
    const { node } = this.walk(path);
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === name);
      if (pair !== undefined) return this.rangeLine(pair.key) ?? this.valueLine(path);
    }
    return this.valueLine(path);
  }
}

// ---------------------------------------------------------------------------------------------
// Schema validation

let compiledValidator: ValidateFunction | undefined;

let compiledAjv: Ajv2020 | undefined;

function validator(): ValidateFunction {
  if (compiledValidator === undefined) {
    compiledAjv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, verbose: true });
    compiledValidator = compiledAjv.compile(POLICY_SCHEMA as unknown as Record<string, unknown>);
  }
  return compiledValidator;
}

/** The validator of one `$defs` entry of the policy schema (compiled with the whole schema). */
function definitionValidator(name: keyof typeof POLICY_SCHEMA.$defs): ValidateFunction {
  validator();
  const validate = compiledAjv?.getSchema(`${POLICY_SCHEMA.$id}#/$defs/${name}`);
  if (validate === undefined) throw new Error(`policy schema has no definition ${name}`);
  return validate;
}

// Friendlier messages, keyed by the schema object that failed (ajv's schemaPath is relative to
// the referenced definition, so identity is the reliable key; `verbose` gives parentSchema).
const SCHEMA_MESSAGES: ReadonlyMap<unknown, string> = new Map<unknown, string>([
  [POLICY_SCHEMA.$defs.label, 'must match [a-z0-9_-]+'],
  [POLICY_SCHEMA.$defs.entity_type, 'must be an entity type name: a lowercase letter, then a-z, 0-9 or _ (optionally prefixed custom:)'],
  [POLICY_SCHEMA.$defs.mask_char, 'must be a single visible character'],
  [POLICY_SCHEMA.$defs.custom_pattern.properties.entity_type, 'must be a bare custom type name: a lowercase letter, then a-z, 0-9 or _'],
  [POLICY_SCHEMA.$defs.restore_override, 'must set caller_role, caller_purpose or both'],
]);

/**
 * JSON Pointer (an ajv instancePath) to path segments, numbers for array indices: the data
 * decides, so a numeric-looking object key stays a string. Also used by k8s/validate.ts.
 */
export function pointerToPath(pointer: string, data: unknown): PathSegment[] {
  if (pointer === '') return [];
  const path: PathSegment[] = [];
  let current: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(current)) {
      const index = Number(segment);
      path.push(index);
      current = current[index];
    } else {
      path.push(segment);
      current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[segment] : undefined;
    }
  }
  return path;
}

function typeName(type: unknown): string {
  const name = String(type);
  switch (name) {
    case 'object':
      return 'a mapping';
    case 'array':
      return 'a list';
    case 'integer':
      return 'an integer';
    default:
      return `a ${name}`;
  }
}

function schemaIssues(errors: readonly ErrorObject[], data: unknown, file: string, locator: Locator): PolicyIssue[] {
  // anyOf: report the anyOf once, not each failed branch.
  const umbrellas = errors.filter((error) => error.keyword === 'anyOf');
  const isBranchOf = (error: ErrorObject): boolean =>
    umbrellas.some(
      (umbrella) =>
        umbrella !== error &&
        error.schemaPath.startsWith(`${umbrella.schemaPath}/`) &&
        error.instancePath.startsWith(umbrella.instancePath),
    );

  const issues: PolicyIssue[] = [];
  for (const error of errors) {
    if (error.keyword === 'if' || isBranchOf(error)) continue;
    if (error.keyword === 'propertyNames') continue; // its nested error carries propertyName
    const path = pointerToPath(error.instancePath, data);
    const params = error.params as Record<string, unknown>;

    if (error.propertyName !== undefined) {
      const keyPath = [...path, error.propertyName];
      const message = SCHEMA_MESSAGES.get(error.parentSchema) ?? error.message ?? 'invalid';
      issues.push({ file, line: locator.keyLine(path, error.propertyName), field: formatFieldPath(keyPath), message: `key ${message}` });
      continue;
    }

    switch (error.keyword) {
      case 'required': {
        const missing = String(params['missingProperty']);
        issues.push({ file, line: locator.valueLine(path), field: formatFieldPath([...path, missing]), message: 'is required' });
        break;
      }
      case 'additionalProperties': {
        const extra = String(params['additionalProperty']);
        const parent = error.parentSchema as { properties?: Record<string, unknown> } | undefined;
        const allowed = Object.keys(parent?.properties ?? {});
        const hint = allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : '';
        issues.push({ file, line: locator.keyLine(path, extra), field: formatFieldPath([...path, extra]), message: `unknown key${hint}` });
        break;
      }
      case 'enum': {
        const allowed = (params['allowedValues'] as unknown[]).map(String).join(', ');
        issues.push({ file, line: locator.valueLine(path), field: formatFieldPath(path), message: `must be one of: ${allowed}` });
        break;
      }
      case 'type': {
        const expected = String(params['type']);
        const quoteHint = expected === 'string' && (typeof error.data === 'number' || typeof error.data === 'boolean') ? ' (quote the value)' : '';
        issues.push({ file, line: locator.valueLine(path), field: formatFieldPath(path), message: `must be ${typeName(expected)}${quoteHint}` });
        break;
      }
      case 'pattern': {
        const message = SCHEMA_MESSAGES.get(error.parentSchema) ?? `must match ${String(params['pattern'])}`;
        issues.push({ file, line: locator.valueLine(path), field: formatFieldPath(path), message });
        break;
      }
      case 'anyOf': {
        const message = SCHEMA_MESSAGES.get(error.parentSchema) ?? error.message ?? 'invalid';
        issues.push({ file, line: locator.valueLine(path), field: formatFieldPath(path), message });
        break;
      }
      default:
        issues.push({ file, line: locator.valueLine(path), field: formatFieldPath(path), message: error.message ?? 'invalid' });
    }
  }
  return issues;
}

// ---------------------------------------------------------------------------------------------
// Semantic checks

/**
 * Checks of one restore strategy beyond the schema: bucket ranges finite, ascending and not
 * overlapping (only the first may omit `min`, only the last `max`). Paths are relative to the
 * strategy. Exported for other restore-strategy sources (config restore_templates).
 */
export function checkRestoreStrategy(strategy: RestoreStrategy): FieldProblem[] {
  const problems: FieldProblem[] = [];
  switch (strategy.kind) {
    case 'reveal_last_n':
    case 'reveal_first_n':
    case 'mask':
      break;
    case 'reveal_range':
      if (!Number.isSafeInteger(strategy.start + strategy.len)) problems.push({ path: ['len'], message: 'start + len is out of range' });
      break;
    case 'bucket': {
      const ranges = strategy.ranges;
      ranges.forEach((range, index) => {
        if (range.min !== undefined && !Number.isFinite(range.min)) problems.push({ path: ['ranges', index, 'min'], message: 'must be a finite number' });
        if (range.max !== undefined && !Number.isFinite(range.max)) problems.push({ path: ['ranges', index, 'max'], message: 'must be a finite number' });
        if (range.min !== undefined && range.max !== undefined && !(range.min < range.max)) {
          problems.push({ path: ['ranges', index, 'max'], message: 'must be greater than min' });
        }
        if (range.min === undefined && index > 0) problems.push({ path: ['ranges', index, 'min'], message: 'is required (only the first range may omit min)' });
        if (range.max === undefined && index < ranges.length - 1) {
          problems.push({ path: ['ranges', index, 'max'], message: 'is required (only the last range may omit max)' });
        }
        const previous = index > 0 ? ranges[index - 1] : undefined;
        if (previous?.max !== undefined && range.min !== undefined && range.min < previous.max) {
          problems.push({ path: ['ranges', index, 'min'], message: 'ranges must be ascending and must not overlap (min below the previous max)' });
        }
      });
      break;
    }
  }
  return problems;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Names a policy declares, read leniently (a declared but invalid entry is still declared). */
interface Declared {
  readonly strategies: ReadonlySet<string>;
  readonly customTypes: ReadonlySet<string>;
}

function declaredNames(data: unknown): Declared {
  const strategies = isObject(data) && isObject(data.restore_strategies) ? Object.keys(data.restore_strategies) : [];
  const patterns = isObject(data) && Array.isArray(data.custom_patterns) ? (data.custom_patterns as unknown[]) : [];
  const customTypes = patterns.flatMap((pattern) => (isObject(pattern) && typeof pattern.entity_type === 'string' ? [pattern.entity_type] : []));
  return { strategies: new Set(strategies), customTypes: new Set(customTypes) };
}

function semanticProblems(policy: Policy, declared: Declared): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const strategies = policy.restore_strategies ?? {};
  const customNames = declared.customTypes;

  const checkEntityType = (type: string, path: readonly PathSegment[]): void => {
    if (type.startsWith(CUSTOM_TYPE_PREFIX)) {
      if (isBuiltinEntityType(type.slice(CUSTOM_TYPE_PREFIX.length))) {
        problems.push({ path, message: 'custom types must not reuse a built-in type name' });
      }
      return;
    }
    if (!isBuiltinEntityType(type) && !customNames.has(type)) {
      problems.push({ path, message: 'is not a built-in type nor a custom_patterns type (write custom:<name> for types from request patterns)' });
    }
  };

  const ruleNames = new Map<string, number>();
  policy.rules.forEach((rule, index) => {
    const base: PathSegment[] = ['rules', index];
    if (rule.name === 'default') problems.push({ path: [...base, 'name'], message: 'is reserved (reported when no rule matches)' });
    const first = ruleNames.get(rule.name);
    if (first === undefined) ruleNames.set(rule.name, index);
    else problems.push({ path: [...base, 'name'], message: `duplicate rule name (first used by rules[${first}])` });

    if (rule.restore_strategy !== undefined && !declared.strategies.has(rule.restore_strategy)) {
      problems.push({ path: [...base, 'restore_strategy'], message: 'names no entry of restore_strategies' });
    }
    if (rule.action !== 'tokenize') {
      if (rule.restore_mode !== undefined) problems.push({ path: [...base, 'restore_mode'], message: 'only applies to action tokenize' });
      if (rule.restore_strategy !== undefined) problems.push({ path: [...base, 'restore_strategy'], message: 'only applies to action tokenize' });
    }

    const match = rule.match;
    if (match.entity_type !== undefined && match.entity_types !== undefined) {
      problems.push({ path: [...base, 'match', 'entity_types'], message: 'use entity_type or entity_types, not both' });
    }
    if (match.entity_type !== undefined) checkEntityType(match.entity_type, [...base, 'match', 'entity_type']);
    match.entity_types?.forEach((type, typeIndex) => checkEntityType(type, [...base, 'match', 'entity_types', typeIndex]));
    if (match.value_pattern !== undefined) {
      const problem = checkPattern(match.value_pattern, { allowEmptyMatch: true });
      if (problem !== undefined) problems.push({ path: [...base, 'match', 'value_pattern'], message: problem });
    }
  });

  for (const [name, strategy] of Object.entries(strategies)) {
    for (const problem of checkRestoreStrategy(strategy)) {
      problems.push({ path: ['restore_strategies', name, ...problem.path], message: problem.message });
    }
  }

  for (const [channel, rule] of Object.entries(policy.channel_rules ?? {})) {
    if (isBuiltinChannel(channel)) {
      const ceiling = BUILTIN_CHANNEL_CEILINGS[channel];
      if (modeRank(rule.max_restore_mode) > modeRank(ceiling)) {
        problems.push({
          path: ['channel_rules', channel, 'max_restore_mode'],
          message: `may only tighten the built-in ceiling of ${channel} (${ceiling})`,
        });
      }
    }
  }

  policy.override_restore_mode?.forEach((override, index) => {
    override.entity_types?.forEach((type, typeIndex) => checkEntityType(type, ['override_restore_mode', index, 'entity_types', typeIndex]));
  });

  policy.custom_patterns?.forEach((pattern, index) => {
    if (isBuiltinEntityType(pattern.entity_type)) {
      problems.push({ path: ['custom_patterns', index, 'entity_type'], message: 'must not reuse a built-in type name' });
    }
    const problem = checkPattern(pattern.pattern);
    if (problem !== undefined) problems.push({ path: ['custom_patterns', index, 'pattern'], message: problem });
  });

  const detection = policy.detection;
  detection?.required_for?.forEach((type, index) => {
    const path = ['detection', 'required_for', index];
    checkEntityType(type, path);
    if (detection.ner_labels !== undefined) {
      const labels = new Set(detection.ner_labels.map(canonicalEntityType));
      if (!labels.has(canonicalEntityType(type))) problems.push({ path, message: 'is not one of detection.ner_labels' });
    }
  });

  return problems;
}

const LABEL = new RegExp(POLICY_SCHEMA.$defs.label.pattern);

/**
 * The parts of a document that failed the schema, left out, so the semantic checks can run on
 * the rest: list items that fail their definition become holes (forEach skips them, and every
 * other index, so every path, stays as written), map entries that fail are dropped, and the
 * required top-level keys the checks read get neutral values. Undefined when the document is
 * not a mapping at all (nothing to check).
 */
function usableParts(data: unknown): Policy | undefined {
  if (!isObject(data)) return undefined;
  const list = (value: unknown, definition: keyof typeof POLICY_SCHEMA.$defs): unknown[] | undefined => {
    if (!Array.isArray(value)) return undefined;
    const validate = definitionValidator(definition);
    const kept: unknown[] = new Array<unknown>(value.length);
    value.forEach((item, index) => {
      if (validate(item)) kept[index] = item;
    });
    return kept;
  };
  const map = (value: unknown, definition: keyof typeof POLICY_SCHEMA.$defs): Record<string, unknown> | undefined => {
    if (!isObject(value)) return undefined;
    const validate = definitionValidator(definition);
    return Object.fromEntries(Object.entries(value).filter(([key, entry]) => LABEL.test(key) && validate(entry)));
  };
  const parts: Record<string, unknown> = {
    name: typeof data.name === 'string' ? data.name : '',
    version: typeof data.version === 'string' ? data.version : '',
    rules: list(data.rules, 'rule') ?? [],
    restore_strategies: map(data.restore_strategies, 'restore_strategy'),
    channel_rules: map(data.channel_rules, 'channel_rule'),
    override_restore_mode: list(data.override_restore_mode, 'restore_override'),
    custom_patterns: list(data.custom_patterns, 'custom_pattern'),
    detection: definitionValidator('detection')(data.detection) ? data.detection : undefined,
  };
  return Object.fromEntries(Object.entries(parts).filter(([, value]) => value !== undefined)) as unknown as Policy;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Parse and validate one policy file. `policy` is set only when there are no issues; it is
 * deep-frozen. `name` is the policy's name when it has issues but a valid name. `file` is used
 * in issues only.
 */
export function parsePolicy(text: string, file: string): { policy?: Policy; name?: string; issues: PolicyIssue[] } {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true, strict: true });
  if (document.errors.length > 0) {
    return {
      issues: document.errors.map((error) => ({
        file,
        line: lines.linePos(error.pos[0]).line,
        field: '(yaml)',
        message: error.message,
      })),
    };
  }

  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { issues: [{ file, line: 1, field: '(yaml)', message: error instanceof Error ? error.message : 'cannot read YAML' }] };
  }

  const locator = new Locator(document, lines);
  const validate = validator();
  const schemaValid = validate(data);
  const schema = schemaValid ? [] : schemaIssues(validate.errors ?? [], data, file, locator);
  const checked = schemaValid ? (data as Policy) : usableParts(data);
  const semantic = (checked === undefined ? [] : semanticProblems(checked, declaredNames(data))).map((problem): PolicyIssue => {
    const last = problem.path.at(-1);
    const parent = problem.path.slice(0, -1);
    const line = typeof last === 'string' ? locator.keyLine(parent, last) : locator.valueLine(problem.path);
    return { file, line, field: formatFieldPath(problem.path), message: problem.message };
  });
  const issues = [...schema, ...semantic];
  if (issues.length > 0) {
    // The policy's name, when it is a valid one, so a directory can still report duplicates.
    const name = isObject(data) && typeof data.name === 'string' && LABEL.test(data.name) ? data.name : undefined;
    return { issues: sortIssues(dedupe(issues)), ...(name !== undefined ? { name } : {}) };
  }
  return { policy: deepFreeze(data as Policy), issues: [] };
}

function dedupe(issues: PolicyIssue[]): PolicyIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.field}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function sortIssues(issues: PolicyIssue[]): PolicyIssue[] {
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort((a, b) => (a.issue.line ?? 0) - (b.issue.line ?? 0) || a.index - b.index)
    .map(({ issue }) => issue);
}
