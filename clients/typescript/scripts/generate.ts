// Generates src/generated/api.ts from the server's OpenAPI 3.1 document (docs/openapi.json, which
// the server builds from its own route schemas): the request and response type of every JSON
// route, the error-code union, and the operation table the client is driven by (method, path,
// scope, Idempotency-Key support, body and answer kinds). Re-run it whenever the document
// changes; `--check` fails when the committed file differs from what the document gives (the
// SDK's drift test runs it).
//
//   tsx scripts/generate.ts --openapi ../../docs/openapi.json [--out src/generated/api.ts] [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type Schema = Record<string, unknown> | boolean;
type Json = Readonly<Record<string, unknown>>;

/** The member at `path` of a parsed JSON value, when every step is an object. */
function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Json)[key];
  }
  return current;
}

function keysOf(value: unknown): string[] {
  return typeof value === 'object' && value !== null ? Object.keys(value) : [];
}

const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The type name of an operation: its path in PascalCase without `v1`, non-GET/POST methods prefixed. */
export function operationName(method: string, path: string): string {
  const words = path
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '' && word !== 'v1')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  const prefix = method === 'get' || method === 'post' ? '' : method.charAt(0).toUpperCase() + method.slice(1);
  return `${prefix}${words.join('')}`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function comment(description: unknown, indent: string): string {
  if (typeof description !== 'string' || description === '') return '';
  return `${indent}/** ${description.replaceAll('*/', '* /').replace(/\s*\n\s*/g, ' ')} */\n`;
}

function needsParens(type: string): boolean {
  return /[|&]/.test(type) && !/^\{[\s\S]*\}$/.test(type);
}

/** A JSON Schema (2020-12 subset the server emits) as a TypeScript type. */
export function tsType(schema: Schema | undefined, indent = ''): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  const s = schema;
  if (typeof s.$ref === 'string') return s.$ref.split('/').at(-1)!;
  if ('const' in s) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((value: unknown) => JSON.stringify(value)).join(' | ');
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const members = [...new Set(((s.anyOf ?? s.oneOf) as Schema[]).map((member) => tsType(member, indent)))];
    return members.map((member) => (needsParens(member) ? `(${member})` : member)).join(' | ');
  }
  if (Array.isArray(s.allOf)) return (s.allOf as Schema[]).map((member) => tsType(member, indent)).map((member) => (needsParens(member) ? `(${member})` : member)).join(' & ');
  if (Array.isArray(s.type)) return (s.type as unknown[]).map((type) => tsType({ ...s, type }, indent)).join(' | ');
  switch (s.type) {
    case 'string':
      // Multipart file fields: a Blob (a File in browsers) on the client side.
      return s.contentEncoding === 'binary' ? 'Blob' : 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = tsType(s.items as Schema | undefined, indent);
      return needsParens(item) ? `(${item})[]` : `${item}[]`;
    }
    case 'object':
      return objectType(s, indent);
    default:
      return s.properties !== undefined ? objectType(s, indent) : 'unknown';
  }
}

function objectType(s: Json, indent: string): string {
  const inner = `${indent}  `;
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set<string>((s.required as string[] | undefined) ?? []);
  const lines: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const description = typeof property === 'object' ? property.description : undefined;
    lines.push(`${comment(description, inner)}${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${tsType(property, inner)};`);
  }
  const extra: string[] = [];
  if (s.patternProperties !== undefined) extra.push(...Object.values(s.patternProperties as Record<string, Schema>).map((value) => tsType(value, inner)));
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) extra.push(tsType(s.additionalProperties as Schema, inner));
  if (extra.length === 0 && lines.length === 0 && s.additionalProperties !== false) extra.push('unknown');
  if (extra.length > 0) {
    const values = [...new Set(extra)];
    // An index signature must admit the declared properties too.
    const all = lines.length > 0 && !values.includes('unknown') ? 'unknown' : values.join(' | ');
    lines.push(`${inner}[key: string]: ${all};`);
  }
  return lines.length === 0 ? '{}' : `{\n${lines.join('\n')}\n${indent}}`;
}

type BodyKind = 'none' | 'json' | 'multipart' | 'json+ndjson';
type AnswerKind = 'json' | 'sse' | 'binary' | 'text';

function bodyKind(operation: unknown): BodyKind {
  const content = keysOf(at(operation, 'requestBody', 'content'));
  if (content.includes('multipart/form-data')) return 'multipart';
  if (content.includes('application/x-ndjson')) return 'json+ndjson';
  if (content.includes('application/json')) return 'json';
  return 'none';
}

function answerKind(operation: unknown): AnswerKind {
  const content = keysOf(at(operation, 'responses', '200', 'content'));
  if (content.includes('text/event-stream')) return 'sse';
  if (content.includes('application/json')) return 'json';
  if (content.some((type) => type.startsWith('text/'))) return 'text';
  return 'binary';
}

export function generate(document: unknown, source: string): string {
  const text = (value: unknown): string => (typeof value === 'string' ? value : '?');
  const out: string[] = [
    `// GENERATED by scripts/generate.ts from ${source} (Veil API ${text(at(document, 'info', 'version'))}, OpenAPI ${text(at(document, 'openapi'))}).`,
    '// Do not edit: change the server\'s route schemas, regenerate docs/openapi.json, then run `npm run generate`.',
    '/* eslint-disable */',
    '',
  ];
  const schemas = (at(document, 'components', 'schemas') ?? {}) as Record<string, Schema>;
  const codes = (at(schemas, 'ErrorEnvelope', 'properties', 'code', 'enum') ?? []) as string[];
  out.push('/** Every error code the server can answer with (the `code` of the error envelope). */');
  out.push(`export type ErrorCode =\n${codes.map((code) => `  | ${JSON.stringify(code)}`).join('\n')};`, '');
  out.push(`/** Every error code, for exhaustive tables. */\nexport const ERROR_CODES = [\n${codes.map((code) => `  ${JSON.stringify(code)},`).join('\n')}\n] as const satisfies readonly ErrorCode[];`, '');
  for (const [name, schema] of Object.entries(schemas)) {
    out.push(`${comment(at(schema, 'description'), '')}export type ${name} = ${tsType(schema)};`, '');
  }

  const operations: { name: string; method: string; path: string; scope: unknown; idempotent: boolean; body: BodyKind; answer: AnswerKind; request: 'Request' | 'Form' | undefined; response: boolean }[] = [];
  const paths = at(document, 'paths');
  for (const path of keysOf(paths).sort()) {
    for (const method of keysOf(at(paths, path)).sort()) {
      const operation = at(paths, path, method);
      const name = operationName(method, path);
      const requestSchema = at(operation, 'requestBody', 'content', 'application/json', 'schema') as Schema | undefined;
      const formSchema = at(operation, 'requestBody', 'content', 'multipart/form-data', 'schema') as Schema | undefined;
      const responseSchema = at(operation, 'responses', '200', 'content', 'application/json', 'schema') as Schema | undefined;
      const doc = [at(operation, 'summary'), at(operation, 'description')].filter((part) => typeof part === 'string').join(' ');
      if (requestSchema !== undefined) out.push(`${comment(`${method.toUpperCase()} ${path}: request body. ${doc}`, '')}export type ${name}Request = ${tsType(requestSchema)};`, '');
      if (formSchema !== undefined) out.push(`${comment(`${method.toUpperCase()} ${path}: multipart form fields. ${doc}`, '')}export type ${name}Form = ${tsType(formSchema)};`, '');
      if (responseSchema !== undefined) out.push(`${comment(`${method.toUpperCase()} ${path}: 200 answer.`, '')}export type ${name}Response = ${tsType(responseSchema)};`, '');
      const parameters = at(operation, 'parameters');
      const idempotent = Array.isArray(parameters) && parameters.some((parameter) => String(at(parameter, 'name')).toLowerCase() === 'idempotency-key');
      operations.push({ name, method: method.toUpperCase(), path, scope: at(operation, 'x-veil-scope'), idempotent, body: bodyKind(operation), answer: answerKind(operation), request: requestSchema !== undefined ? 'Request' : formSchema !== undefined ? 'Form' : undefined, response: responseSchema !== undefined });
    }
  }

  out.push('/** The route table: what the client needs to call each operation. */');
  out.push('export const OPERATIONS = {');
  for (const op of operations) {
    out.push(`  ${op.name}: { method: '${op.method}', path: '${op.path}', scope: ${JSON.stringify(op.scope)}, idempotent: ${String(op.idempotent)}, body: '${op.body}', answer: '${op.answer}' },`);
  }
  out.push('} as const;', '');
  out.push('export type OperationName = keyof typeof OPERATIONS;', '');
  out.push('/** Request (JSON body or multipart form fields) and answer types per operation (`undefined` request: no body; `unknown` answer: not JSON). */');
  out.push('export interface OperationTypes {');
  for (const op of operations) {
    out.push(`  ${op.name}: { request: ${op.request !== undefined ? `${op.name}${op.request}` : 'undefined'}; response: ${op.response ? `${op.name}Response` : 'unknown'} };`);
  }
  out.push('}', '');
  return out.join('\n');
}

function main(argv: readonly string[]): void {
  const option = (name: string): string | undefined => {
    const index = argv.indexOf(name);
    return index === -1 ? undefined : argv[index + 1];
  };
  const input = resolve(PACKAGE, option('--openapi') ?? '../../docs/openapi.json');
  const output = resolve(PACKAGE, option('--out') ?? 'src/generated/api.ts');
  const document = JSON.parse(readFileSync(input, 'utf8')) as unknown;
  const text = generate(document, join('docs', basename(input)));
  if (argv.includes('--check')) {
    const current = readFileSync(output, 'utf8');
    if (current !== text) {
      process.stderr.write(`${output} is out of date with ${input}: run npm run generate -w @veil/client\n`);
      process.exit(1);
    }
    return;
  }
  writeFileSync(output, text);
  process.stdout.write(`wrote ${output}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
