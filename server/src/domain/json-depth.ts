// A linear pre-scan of a JSON text's nesting depth, run before JSON.parse so that a body nested
// 100,000 levels deep is refused with a clear error instead of exhausting a stack in the
// parser, the validator or the structured clone between threads. Strings are skipped with
// their escapes, so brackets inside values do not count.
//
// The same pass bounds the members of one object and the values of the whole text
// (checkJsonStructure), so a body of 600,000 keys is refused before any object is built.
//
// Every depth and structure bound of a request (this body pre-scan, a JSON document's 64
// levels, tool-call arguments, ndjson lines, a rehydrated document, the slot and scanned-text
// budgets) answers the same way: 413 VEIL_PAYLOAD_TOO_LARGE naming the bound, built here.
// parseJsonBounded is the one way a JSON text from a client is parsed (bodies on the loop or a
// worker, ndjson lines, JSON uploads): this pre-scan, then a parse refusing prototype poisoning.
import { VeilError } from '@veil/common';
import sjson from 'secure-json-parse';

/** A request whose structure is past a bound: too deep, too many slots, too much text. */
export function structureBoundExceeded(message: string): VeilError {
  return new VeilError('VEIL_PAYLOAD_TOO_LARGE', message);
}

/** `where` (a field name or pointer built from safe names only) is nested deeper than `maxDepth`. */
export function nestedTooDeep(where: string, maxDepth: number): VeilError {
  return structureBoundExceeded(`${where}: nested deeper than ${maxDepth} levels`);
}

/** Deepest nesting accepted in any request body (the JSON-mode document bound is 64). */
export const MAX_BODY_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

const COLON = 0x3a;
const COMMA = 0x2c;

/** Structural bounds of a JSON text, checked on its bytes before it is parsed. */
export interface JsonStructureLimits {
  readonly maxDepth: number;
  /** Members of any one object. */
  readonly maxKeys: number;
  /** Values of the whole text (containers, members and elements), counted as separators + containers + 1. */
  readonly maxValues: number;
}

/**
 * Index of the quote closing a string whose content starts at `from` (text.length when it is
 * unterminated). A quote is escaped when an odd run of backslashes precedes it: a backslash
 * escapes the next character, so pairs cancel, and the run cannot start before `from` (the
 * opening quote is not a backslash). indexOf finds each candidate quote without a loop turn per
 * character of content.
 */
function stringEnd(text: string, from: number): number {
  for (let at = from; ; ) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    let before = quote - 1;
    while (before >= from && text.charCodeAt(before) === BACKSLASH) before -= 1;
    if ((quote - 1 - before) % 2 === 0) return quote;
    at = quote + 1;
  }
}

/**
 * Refuse `text` (named `where` in the error) when its containers nest deeper than `maxDepth`,
 * one object has more than `maxKeys` members, or the text holds more than `maxValues` values.
 * One linear pass over the characters, strings skipped with their escapes, nothing built: a
 * body of half a million keys is refused before JSON.parse allocates any of them.
 */
export function checkJsonStructure(text: string, limits: JsonStructureLimits, where = 'body'): void {
  const { maxDepth, maxKeys, maxValues } = limits;
  // Members seen per open container (objects only; arrays keep -1 so colons never count there).
  const members = new Int32Array(maxDepth + 2);
  let depth = 0;
  let values = 1;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    switch (code) {
      case QUOTE:
        // Most of a body is string content: jump over it (to its closing quote, or past the end).
        index = stringEnd(text, index + 1);
        break;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        depth += 1;
        if (depth > maxDepth) throw nestedTooDeep(where, maxDepth);
        members[depth] = code === OPEN_BRACE ? 0 : -1;
        values += 1;
        if (values > maxValues) throw structureBoundExceeded(`${where}: holds more than ${maxValues} JSON values`);
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        if (depth > 0) depth -= 1;
        break;
      case COLON:
        if (depth > 0 && members[depth]! >= 0) {
          members[depth] = members[depth]! + 1;
          if (members[depth]! > maxKeys) throw structureBoundExceeded(`${where}: an object has more than ${maxKeys} members`);
        }
        break;
      case COMMA:
        values += 1;
        if (values > maxValues) throw structureBoundExceeded(`${where}: holds more than ${maxValues} JSON values`);
        break;
      default:
        break;
    }
  }
}

/** Refuse `text` (named `where` in the error) when its containers nest deeper than `maxDepth`. */
export function checkJsonDepth(text: string, maxDepth: number = MAX_BODY_DEPTH, where = 'body'): void {
  checkJsonStructure(text, { maxDepth, maxKeys: Number.MAX_SAFE_INTEGER, maxValues: Number.MAX_SAFE_INTEGER }, where);
}

/**
 * Parse a client's JSON text, already within its bounds: `__proto__` members refused, a
 * `constructor` member ignored, and a syntax error answered as 400 naming `where`, never with
 * the parser's message (it can quote the text).
 */
export function parseJsonText(text: string, where = 'body'): unknown {
  try {
    return sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'ignore' }) as unknown;
  } catch {
    throw new VeilError('VEIL_VALIDATION_FAILED', `${where}: is not valid JSON`);
  }
}

/** checkJsonStructure, then parseJsonText: nothing is built for a text past a bound. */
export function parseJsonBounded(text: string, limits: JsonStructureLimits, where = 'body'): unknown {
  checkJsonStructure(text, limits, where);
  return parseJsonText(text, where);
}
