// Structure-aware restore of a JSON document that carries tokens in its strings and keys. Text
// rehydrate of a serialized document (safe_text) inserts values verbatim, which is right for
// prose but breaks JSON when a value holds a quote, a backslash or a control character (and a
// crafted value could even add members). Restoring each string of the parsed document and
// serializing again keeps the document valid whatever the values hold. Pure: the text restore
// (session, policy, channel and scan) is passed in.
import { VeilError } from '@veil/common';
import { nestedTooDeep } from '../json-depth.js';
import type { UnresolvedToken } from '../rehydrate.js';
import { setMember } from './json.js';
import { STRUCTURED_LIMITS, isPlainObject } from './limits.js';

export interface TextRestore {
  (text: string): { readonly restoredText: string; readonly tokensResolved: number; readonly tokensUnresolved: readonly UnresolvedToken[] };
}

export interface JsonRestoreResult {
  readonly value: unknown;
  readonly tokensResolved: number;
  readonly tokensUnresolved: UnresolvedToken[];
}

/**
 * Restore every string value and key of `value`. A key whose restored form would collide with
 * another key of the same object (two values masked alike, say) keeps its token form, so no
 * member is ever lost. Numbers, booleans and null pass; nesting is bounded like JSON mode.
 */
export function restoreJsonValue(value: unknown, restore: TextRestore, maxDepth: number = STRUCTURED_LIMITS.maxDepth): JsonRestoreResult {
  let resolved = 0;
  const unresolved: UnresolvedToken[] = [];
  const text = (input: string): string => {
    if (!input.includes('{')) return input;
    const result = restore(input);
    resolved += result.tokensResolved;
    for (const item of result.tokensUnresolved) unresolved.push(item);
    return result.restoredText;
  };
  const walk = (current: unknown, depth: number): unknown => {
    if (typeof current === 'string') return text(current);
    if (typeof current !== 'object' || current === null) return current;
    if (depth >= maxDepth) throw nestedTooDeep('document', maxDepth);
    if (Array.isArray(current)) return (current as unknown[]).map((item) => walk(item, depth + 1));
    if (!isPlainObject(current)) throw new VeilError('VEIL_VALIDATION_FAILED', 'document: holds a value that is not JSON');
    const out: Record<string, unknown> = {};
    const keys = Object.keys(current);
    const taken = new Set<string>(keys);
    for (const key of keys) {
      let restoredKey = key;
      if (key.includes('{')) {
        const result = restore(key);
        const collides = result.restoredText !== key && taken.has(result.restoredText);
        if (!collides) {
          restoredKey = result.restoredText;
          taken.delete(key);
          taken.add(restoredKey);
          resolved += result.tokensResolved;
          for (const item of result.tokensUnresolved) unresolved.push(item);
        }
      }
      setMember(out, restoredKey, walk(current[key], depth + 1));
    }
    return out;
  };
  return { value: walk(value, 0), tokensResolved: resolved, tokensUnresolved: unresolved };
}
