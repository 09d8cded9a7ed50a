// The inline text transform's answer (POST /v1/transform, text mode) written by JSON.stringify
// instead of the route's compiled schema serializer (fast-json-stringify), byte for byte the
// same (issue 20, session 12). The serializer builds its output by concatenation: the answer of
// a 1 KB transform (~11 KB: forty entities) is a string of hundreds of pieces, which Fastify then
// flattens into a new string to measure its length before writing it. JSON.stringify writes one
// flat string at about the serializer's own cost, so the flattening copy is saved (BENCHMARKS.md
// "Session 12 (wave11/hot)").
//
// The same bytes because:
//   - order: the serializer writes an object's required properties first, then its optional
//     ones, each group in the schema's order (TransformResponseSchema), skipping undefined;
//     JSON.stringify writes own properties in insertion order, skipping undefined. The top level
//     is built here in the serializer's order. The nested objects are built in their schemas'
//     order, with no other properties, where they are made: entities, spans and stats in
//     services/transform.ts (entity metadata after the span, in schema order, by
//     services/metadata.ts), entity_context there too, prompt_security and its findings in
//     domain/guard/prompt.ts. answer-json.test.ts checks that every answer the route writes is
//     exactly what the schema serializer writes for it parsed back (which it would not be if any
//     of those orders or property sets changed);
//   - strings: the serializer writes a string that needs no escape as it is, and escapes any
//     other with JSON.stringify (quotes, backslashes, controls, lone surrogates);
//   - numbers: both write a finite number as String(n) (counts and offsets are integers; the
//     times are rounded to the microsecond); booleans as true/false; arrays in order;
//   - entity_summary, a record: the schema gives its keys as the pattern `^(.*)$`, which no key
//     holding a line terminator matches, so the serializer leaves such a key out. Entity types
//     never hold one (the token grammar), but a summary with one is written without it all the
//     same.
import type { TransformResponse } from '../services/transform.js';
import type { SessionHandle } from '../usecases/transform.js';

/** The answer of an inline text transform with its session handle, as the schema serializer writes it. */
export function transformAnswerJson(response: TransformResponse, handle: SessionHandle): string {
  return answerJson(response, handle, response.safe_text);
}

/** The same member's head, before its escaped value (ASCII: its UTF-8 length is its length). */
const SAFE_TEXT_HEAD = '{"safe_text":';

/**
 * transformAnswerJson's bytes for an answer with a long `safe_text` (a 100 KB transform), built
 * without a string of the whole answer: `safe_text` escaped on its own (JSON.stringify, as in the
 * whole answer) and the rest stringified with an empty `safe_text`, each encoded once into one
 * Buffer that is written as it is; the entity list in the rest by entitiesJson (same bytes, see
 * there). A string of the whole answer (~190 KB for the ratio
 * benchmark's 100 KB body) would be above V8's regular object size and go to its large-object
 * space, whose pages are mapped and touched afresh for each request (measured: +75 minor page
 * faults and +250-450 µs of system time per request, more than it saved); the schema
 * serializer's output for the rest (the route's former path, services/json-text.ts
 * textAnswerBytes) is a rope of hundreds of pieces, flattened again when it is encoded.
 *
 * Session 19 (wave18/large): a `safe_text` of ASCII with nothing JSON escapes (no quote,
 * backslash or control; PLAIN_ASCII finds none) is what JSON.stringify writes between its two
 * quotes, unit for unit (JSON.stringify escapes only those and lone surrogates, and a string of
 * units below 0x80 holds no surrogate), and its UTF-8 bytes are its units: it is written into the
 * Buffer as latin1 between two quotes, without the escaped copy, its UTF-8 length count and its
 * UTF-8 encoding (the ratio benchmark's 108 KB safe text: one regex search instead of
 * JSON.stringify's pass; BENCHMARKS.md "Session 19 (wave18/large)"). Any other text (a line
 * break, a quote, a non-ASCII letter) is escaped by JSON.stringify as before.
 */
export function transformAnswerBytes(response: TransformResponse, handle: SessionHandle): Buffer {
  const text = response.safe_text;
  const plain = !NEEDS_ESCAPE_OR_NOT_ASCII.test(text);
  const escaped = plain ? '' : JSON.stringify(text);
  // The rest with no entities, then the entity list written by entitiesJson in their place (the
  // second member, as answerJson writes it). Each piece encoded on its own, as the text is: no
  // string joins them (a join would be one more copy of ~80 KB to flatten).
  const entities = entityMembers(response.entities);
  const rest = answerJson(response, handle, '', NO_ENTITIES).slice(EMPTY_HEAD.length);
  const escapedBytes = plain ? text.length + 2 : Buffer.byteLength(escaped);
  const entitiesBytes = Buffer.byteLength(entities);
  const bytes = Buffer.allocUnsafe(SAFE_TEXT_HEAD.length + escapedBytes + ENTITIES_HEAD.length + entitiesBytes + 1 + Buffer.byteLength(rest));
  let at = bytes.write(SAFE_TEXT_HEAD, 0, 'latin1');
  if (plain) {
    bytes[at++] = QUOTE;
    at += bytes.write(text, at, 'latin1');
    bytes[at++] = QUOTE;
  } else {
    at += bytes.write(escaped, at);
  }
  at += bytes.write(ENTITIES_HEAD, at, 'latin1');
  at += bytes.write(entities, at);
  bytes[at++] = CLOSE_BRACKET;
  bytes.write(rest, at);
  return bytes;
}

type Entity = TransformResponse['entities'][number];

const NO_ENTITIES: readonly Entity[] = [];
/** What JSON.stringify writes first for an empty `safe_text` and no entities (the answer's first two members). */
const EMPTY_HEAD = '{"safe_text":"","entities":[]';
/** The entities member's name and the list's opening bracket, after the escaped text. */
const ENTITIES_HEAD = ',"entities":[';
/** `]`. */
const CLOSE_BRACKET = 0x5d;
/** `"`. */
const QUOTE = 0x22;
/** A unit JSON.stringify escapes (quote, backslash, controls; lone surrogates are above 0x7f) or one whose UTF-8 is not itself. */
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE_OR_NOT_ASCII = /[\u0000-\u001f"\\\u0080-\uffff]/;
/** An entity's own keys as services/transform.ts writes one without metadata, in its order. */
const ENTITY_KEYS: readonly string[] = ['token', 'type', 'protection_level', 'action_applied', 'confidence', 'detector', 'span'];

/**
 * JSON.stringify(entities), with the part of each entity before its span's value written once
 * per distinct token (session 16, wave15/large). A text repeats its values, and every occurrence
 * of one carries the same token, type, level, action, confidence and detector: the ratio
 * benchmark's 100 KB body has 398 entities of 7 tokens, which JSON.stringify writes at ~0.85-1.5
 * µs each; here each is the memoized head and its two offsets (in process, 619 → 225 µs for the
 * list). The same bytes because the head is JSON.stringify's own output for the same values in
 * the same order (an entity whose own keys are not exactly ENTITY_KEYS in that order, one with
 * metadata say, or whose span is not exactly `{start, end}` of two integers, is written by
 * JSON.stringify whole), reused only while all six values are equal (`===`; a NaN never is) to
 * those it was made from, and an integer's JSON is String(n).
 */
export function entitiesJson(entities: readonly Entity[]): string {
  return `[${entityMembers(entities)}]`;
}

/** entitiesJson without its brackets (flat: transformAnswerBytes writes the brackets apart). */
function entityMembers(entities: readonly Entity[]): string {
  const heads = new Map<string, { readonly entity: Entity; readonly text: string }>();
  // One join: a flat string made once, not a rope of a few pieces per entity.
  const parts: string[] = [];
  for (const entity of entities) {
    if (!plainEntity(entity)) {
      parts.push(JSON.stringify(entity));
      continue;
    }
    let head = heads.get(entity.token);
    if (head === undefined || !sameHead(head.entity, entity)) {
      const { token, type, protection_level, action_applied, confidence, detector } = entity;
      // `"span":0}` off the end: the head stops where the span's value starts.
      head = { entity, text: JSON.stringify({ token, type, protection_level, action_applied, confidence, detector, span: 0 }).slice(0, -2) };
      heads.set(entity.token, head);
    }
    parts.push(`${head.text}{"start":${entity.span.start},"end":${entity.span.end}}}`);
  }
  return parts.join(',');
}

/** Own keys exactly ENTITY_KEYS in order, the span's exactly `start`, `end`, both integers. */
function plainEntity(entity: Entity): boolean {
  const keys = Object.keys(entity);
  if (keys.length !== ENTITY_KEYS.length) return false;
  for (let k = 0; k < keys.length; k++) if (keys[k] !== ENTITY_KEYS[k]) return false;
  const span: unknown = entity.span;
  if (typeof span !== 'object' || span === null) return false;
  const spanKeys = Object.keys(span);
  if (spanKeys.length !== 2 || spanKeys[0] !== 'start' || spanKeys[1] !== 'end') return false;
  return Number.isInteger(entity.span.start) && Number.isInteger(entity.span.end);
}

function sameHead(a: Entity, b: Entity): boolean {
  return a.type === b.type && a.protection_level === b.protection_level && a.action_applied === b.action_applied && a.confidence === b.confidence && a.detector === b.detector;
}

function answerJson(response: TransformResponse, handle: SessionHandle, safeText: string, entities: readonly Entity[] = response.entities): string {
  const session = handle as { readonly session_state?: string; readonly session_id?: string };
  return JSON.stringify({
    // Required, in the schema's order.
    safe_text: safeText,
    entities,
    stats: response.stats,
    detector_mode: response.detector_mode,
    policy_version: response.policy_version,
    trace_id: response.trace_id,
    // Optional, in the schema's order (safe_json and safe_messages are never in a text answer).
    session_state: session.session_state,
    session_id: session.session_id,
    entity_context: response.entity_context,
    entity_summary: response.entity_summary === undefined ? undefined : summaryAsSerialized(response.entity_summary),
    warnings: response.warnings,
    prompt_security: response.prompt_security,
  });
}

/** A line terminator: what `.` in the schema's key pattern `^(.*)$` does not match. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/** The summary with only the keys the schema serializer writes (every entity type's; see the header). */
function summaryAsSerialized(summary: Readonly<Record<string, number>>): Readonly<Record<string, number>> {
  const keys = Object.keys(summary);
  if (!keys.some((key) => LINE_TERMINATOR.test(key))) return summary;
  return Object.fromEntries(keys.filter((key) => !LINE_TERMINATOR.test(key)).map((key) => [key, summary[key]!]));
}
