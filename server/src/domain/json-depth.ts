// A linear pre-scan of a JSON text's nesting depth, run before JSON.parse so that a body nested
// 100,000 levels deep is refused with a clear error instead of exhausting a stack in the
// parser, the validator or the structured clone between threads. Strings are skipped with
// their escapes, so brackets inside values do not count.
//
// Every depth and structure bound of a request (this body pre-scan, a JSON document's 64
// levels, tool-call arguments, ndjson lines, a rehydrated document, the slot and scanned-text
// budgets) answers the same way: 413 VEIL_PAYLOAD_TOO_LARGE naming the bound, built here.
import { VeilError } from '@veil/common';

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

/** Refuse `text` (named `where` in the error) when its containers nest deeper than `maxDepth`. */
export function checkJsonDepth(text: string, maxDepth: number = MAX_BODY_DEPTH, where = 'body'): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) inString = true;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      if (depth > maxDepth) throw nestedTooDeep(where, maxDepth);
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth -= 1;
  }
}
