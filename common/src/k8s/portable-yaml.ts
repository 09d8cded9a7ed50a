// YAML that reads the same under YAML 1.1 and YAML 1.2. kubectl, Helm and the API server read
// YAML 1.1 (go-yaml), where a plain `n`, `y`, `yes`, `off`, `0777`, `1:20` or `<<` is not a
// string; the `yaml` package reads 1.2. Everything Veil hands to kubectl or writes for a server
// goes through stringifyPortableYaml, which quotes every string that either version would read as
// something else and then proves the round trip under both (it throws rather than emit YAML that
// a cluster would read differently). readsSameUnderYaml11And12 is the check the tests apply to
// every committed manifest and documented example.
import { isDeepStrictEqual } from 'node:util';
import { Document, parse, parseAllDocuments, visit, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

/**
 * How each version is read. YAML 1.1 as go-yaml reads it into untyped data: merge keys on, and
 * timestamps stay strings (go-yaml makes a time only for a time-typed target).
 */
const READ_OPTIONS: Record<'1.1' | '1.2', ParseOptions & DocumentOptions & SchemaOptions> = {
  '1.1': { version: '1.1', merge: true, customTags: (tags) => tags.filter((tag) => typeof tag === 'string' || tag.tag !== 'tag:yaml.org,2002:timestamp') },
  '1.2': { version: '1.2' },
};

/** True when `text`, as a plain scalar, is read as this exact string by both YAML versions. */
function plainIsString(text: string): boolean {
  if (text === '<<') return false; // the YAML 1.1 merge key
  for (const version of ['1.1', '1.2'] as const) {
    let value: unknown;
    try {
      value = parse(text, { ...READ_OPTIONS[version], logLevel: 'silent' });
    } catch {
      return false;
    }
    if (value !== text) return false;
  }
  return true;
}

/** Stringify `value` (plain JSON data) so that YAML 1.1 and 1.2 parsers read back the same data. */
export function stringifyPortableYaml(value: unknown): string {
  const document = new Document(value, { aliasDuplicateObjects: false, version: '1.2' });
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && !plainIsString(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  const text = document.toString({ lineWidth: 0 });
  const problem = yamlVersionDifference(text, value);
  if (problem !== undefined) throw new Error(`stringifyPortableYaml: ${problem}`);
  return text;
}

/** Reads every document of `text` under one YAML version (null documents dropped). */
export function parseYamlDocuments(text: string, version: '1.1' | '1.2'): unknown[] {
  return parseAllDocuments(text, READ_OPTIONS[version]).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`YAML ${version}: ${document.errors[0]!.message}`);
    const data: unknown = document.toJS({ maxAliasCount: -1 });
    return data === null || data === undefined ? [] : [data];
  });
}

/** Why `text` reads differently under YAML 1.1 and 1.2 (or differently from `expected`), or undefined when it reads the same. */
export function yamlVersionDifference(text: string, expected?: unknown): string | undefined {
  let v11: unknown[];
  let v12: unknown[];
  try {
    v11 = parseYamlDocuments(text, '1.1');
    v12 = parseYamlDocuments(text, '1.2');
  } catch (error) {
    return (error as Error).message;
  }
  if (!isDeepStrictEqual(v11, v12)) return `reads differently under YAML 1.1 and 1.2 at ${firstDifference(v11, v12)}`;
  if (expected !== undefined && !isDeepStrictEqual(v12, [JSON.parse(JSON.stringify(expected))])) {
    return `does not read back as the data it was written from at ${firstDifference(v12, [expected])}`;
  }
  return undefined;
}

/** JSON-pointer-like path of the first difference between two values. */
export function firstDifference(a: unknown, b: unknown, path = ''): string {
  if (isDeepStrictEqual(a, b)) return '(none)';
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let index = 0; index < Math.max(a.length, b.length); index++) {
      if (!isDeepStrictEqual(a[index], b[index])) return firstDifference(a[index], b[index], `${path}/${index}`);
    }
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of keys) {
      const left = (a as Record<string, unknown>)[key];
      const right = (b as Record<string, unknown>)[key];
      if (!isDeepStrictEqual(left, right)) return firstDifference(left, right, `${path}/${key}`);
    }
  }
  return path || '/';
}
