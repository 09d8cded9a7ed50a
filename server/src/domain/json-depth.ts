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
 * Index of the quote that closes the string whose contents start at `from` (text.length when it
 * is never closed). A quote closes the string unless an odd number of backslashes stands right
 * before it (counted from `from` on); each backslash run is counted once, so the search stays
 * linear on any text.
 */
export function stringEnd(text: string, from: number): number {
  let quote = text.indexOf('"', from);
  while (quote !== -1) {
    let slashes = 0;
    while (quote - 1 - slashes >= from && text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
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
        // Strings are most of a body's characters (a 100 KB transform input is one string):
        // jump to its closing quote with one native search instead of a loop turn per character.
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
    // secure-json-parse tests a regex from every quote of the text for a `"__proto__":` key
    // (spelled with `_` or `\u005f`); a text where no quote is followed by `_` or `\u005` cannot
    // hold one, and two native searches say so faster than the regex (1 % of a 100 KB transform).
    // A leading byte-order mark is secure-json-parse's to strip.
    if (text.charCodeAt(0) !== 0xfeff && !text.includes('"_') && !text.includes('"\\u005')) return JSON.parse(text) as unknown;
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
