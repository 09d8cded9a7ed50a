// services/json-text.ts: long serialized answers cross from a worker as bytes and leave as parts;
// what the client receives must be the same JSON as the string would have been.
import { Readable } from 'node:stream';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TransformResponseSchema } from '../routes/schemas.js';
import { JSON_BYTES_ABOVE, jsonPayload, jsonString, textAnswerBytes, toJsonText, transferablesOf, withTrailingFields } from './json-text.js';

async function text(payload: { body: string | Buffer | Readable; length?: number }): Promise<string> {
  if (typeof payload.body === 'string') return payload.body;
  if (Buffer.isBuffer(payload.body)) {
    expect(payload.body.length).toBe(payload.length);
    return payload.body.toString('utf8');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of payload.body) chunks.push(chunk as Buffer);
  const joined = Buffer.concat(chunks);
  expect(joined.length).toBe(payload.length);
  return joined.toString('utf8');
}

describe('json-text', () => {
  const long = JSON.stringify({ items: Array.from({ length: 5000 }, (_, index) => `café ☕ ${index} 𝄞`) });

  it('keeps short answers as strings and long ones as bytes that own their buffer', () => {
    expect(toJsonText('{"a":1}')).toBe('{"a":1}');
    expect(long.length).toBeGreaterThan(JSON_BYTES_ABOVE);
    const bytes = toJsonText(long);
    expect(bytes).toBeInstanceOf(Uint8Array);
    const view = bytes as Uint8Array;
    expect(view.byteOffset).toBe(0);
    expect(view.byteLength).toBe(view.buffer.byteLength);
    expect(jsonString(bytes)).toBe(long);
    expect(transferablesOf({ body: bytes, count: 3, frames: [bytes], other: 'x' })).toEqual([view.buffer]);
    expect(transferablesOf({ body: '{}' })).toEqual([]);
  });

  it('sends the same JSON from string and byte parts, with the handle spliced in', async () => {
    const handle = ',"session_state":"v1.abc"';
    const expected = `${long.slice(0, -1)}${handle}}`;
    expect(await text(jsonPayload(withTrailingFields(long, handle)))).toBe(expected);
    expect(await text(jsonPayload(withTrailingFields(toJsonText(long), handle)))).toBe(expected);
    expect(JSON.parse(await text(jsonPayload(['{"entities":', toJsonText(long), ',"n":1}'])))).toEqual({ entities: JSON.parse(long), n: 1 });
  });

  it('writes bytes that are the only part as they are, not through a stream', () => {
    const bytes = toJsonText(long) as Uint8Array;
    const payload = jsonPayload([bytes]);
    expect(Buffer.isBuffer(payload.body)).toBe(true);
    expect(payload.length).toBe(bytes.byteLength);
    expect((payload.body as Buffer).buffer).toBe(bytes.buffer);
  });
});

describe('textAnswerBytes', () => {
  // The route's own serializer: Fastify's compiler with the /v1/transform answer schema.
  const serialize = SerializerSelector()({}, {})({ schema: TransformResponseSchema, method: 'POST', url: '/v1/transform', httpStatus: '200' });
  const entity = { token: '{{email:e_001:49ce53807dce}}', type: 'email', protection_level: 'high', action_applied: 'tokenize', confidence: 0.9, detector: 'builtin_regex', span: { start: 3, end: 9 } };
  const answer = (safeText: string, extra: Record<string, unknown> = {}) => ({
    safe_text: safeText,
    entities: [entity, { ...entity, token: 'tab\there "quoted" \u00e9', span: { start: 10, end: 12 } }],
    stats: { entities_detected: 2, entities_transformed: 2, entities_blocked: 0, detection_time_ms: 1.25, transform_time_ms: 3.5 },
    detector_mode: 'builtin_regex',
    warnings: ['ner_unavailable'],
    policy_version: 'v1',
    trace_id: 't-1',
    ...extra,
  });

  it('leaves a short answer to the serializer', () => {
    expect(textAnswerBytes(answer('short'), serialize)).toBeUndefined();
    expect(textAnswerBytes({}, serialize)).toBeUndefined();
  });

  it('writes the bytes the schema serializer writes, in its key order, for any long text', () => {
    const unit = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('"', '\\', '\n', '\u0000', '\uD800', '\uDFFF', '😀', 'é', '{{email:e_001:49ce53807dce}}'));
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 30 }), fc.boolean(), (pieces, byId) => {
        const safeText = `${pieces.join('')}${'prose and a value '.repeat(4000)}`;
        expect(safeText.length).toBeGreaterThan(JSON_BYTES_ABOVE);
        // Members in another order than the schema's, as the route spreads the handle last.
        const value = { ...answer(safeText, { entity_summary: { email: 2 }, prompt_security: { triggered: true, action: 'warn', findings: [{ kind: 'override', count: 1 }] } }), ...(byId ? { session_id: 'sid-1' } : { session_state: 'v1.abc' }) };
        const bytes = textAnswerBytes(value, serialize);
        expect(bytes).toBeInstanceOf(Buffer);
        expect(bytes!.equals(Buffer.from(serialize(value), 'utf8'))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('declines when the serializer does not start with safe_text', () => {
    expect(textAnswerBytes(answer('x'.repeat(JSON_BYTES_ABOVE + 1)), () => '{"other":1}')).toBeUndefined();
    expect(textAnswerBytes(answer('x'.repeat(JSON_BYTES_ABOVE + 1)), () => Buffer.from('{}'))).toBeUndefined();
  });
});
