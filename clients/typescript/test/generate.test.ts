// The SDK's types come from the server's OpenAPI document: the committed src/generated/api.ts
// must be exactly what scripts/generate.ts makes of docs/openapi.json, and the schema-to-type
// conversion covers the constructs the document uses.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generate, operationName, tsType } from '../scripts/generate.js';

// The checkout (not imported from e2e/support/server.ts: that module starts processes, this test does not).
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DOCUMENT = join(ROOT, 'docs/openapi.json');
const GENERATED = join(ROOT, 'clients/typescript/src/generated/api.ts');

describe('generated API types', () => {
  // docs/openapi.json is produced by the server's OpenAPI generator (the platform work); until it
  // is in this tree there is nothing to compare with, and the file was generated from its copy.
  it.skipIf(!existsSync(DOCUMENT))('match docs/openapi.json (run `npm run generate -w @veil/client` after changing routes)', () => {
    const expected = generate(JSON.parse(readFileSync(DOCUMENT, 'utf8')), 'docs/openapi.json');
    expect(readFileSync(GENERATED, 'utf8')).toBe(expected);
  });

  it('names operations by path and turns JSON Schema into TypeScript', () => {
    expect(operationName('post', '/v1/rag/ingest/batch')).toBe('RagIngestBatch');
    expect(operationName('delete', '/v1/sessions')).toBe('DeleteSessions');
    expect(operationName('post', '/openai/v1/chat/completions')).toBe('OpenaiChatCompletions');
    expect(tsType({ anyOf: [{ type: 'string', const: 'a' }, { type: 'string', const: 'b' }] })).toBe('"a" | "b"');
    expect(tsType({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } })).toBe('(string | null)[]');
    expect(tsType({ type: 'object', required: ['a'], properties: { a: { type: 'integer' }, 'b-c': { type: 'boolean' } } })).toBe('{\n  a: number;\n  "b-c"?: boolean;\n}');
    expect(tsType({ type: 'object', patternProperties: { '^x$': { type: 'string' } } })).toBe('{\n  [key: string]: string;\n}');
    expect(tsType({ type: 'string', contentEncoding: 'binary' })).toBe('Blob');
    expect(tsType({})).toBe('unknown');
    expect(tsType({ $ref: '#/components/schemas/ErrorEnvelope' })).toBe('ErrorEnvelope');
  });
});
