// Restore model output: one left-to-right pass over the tokens in the text. Restored values are
// never re-scanned for tokens (no second-order expansion), unknown ids and wrong caps are
// reported the same way (no oracle), and each value's mode comes from the policy, the caller,
// the channel, and where the token sits: the output as it will be rendered (text, unresolved
// tokens verbatim, restored values) is fed through a MarkupContext, and a token inside a URL, a
// link target or an HTML tag gets the channel's url_restore_mode at most (threats.md 9), as does
// a token the text right of it makes part of a host name or an address (restore/right-context.ts).
import type { Caller, CompiledPolicy } from './policy/index.js';
import { gluedTail, MarkupContext, restoreValue, type RestoreTemplates } from './restore/index.js';
import { capsEqual, findTokens, type TokenCandidate } from './token/index.js';
import type { RestoreMode, TokenEntry } from './types.js';

export const DELETED = '[DELETED]';

export interface UnresolvedToken {
  readonly token: string;
  readonly reason: 'unknown' | 'malformed';
}

export interface RehydrateInput {
  readonly output: string;
  /** Token id -> entry, from the session. */
  readonly entries: ReadonlyMap<string, TokenEntry>;
  readonly policy: CompiledPolicy;
  readonly language: string;
  readonly caller: Caller;
  readonly channel: string;
  readonly requestedMode?: RestoreMode | undefined;
  /** restore_overrides keyed by token id. */
  readonly tokenOverrides?: Readonly<Record<string, RestoreMode>> | undefined;
  readonly templates?: RestoreTemplates | undefined;
  /** Revocation seam: true when the value was erased; such values restore as [DELETED]. */
  readonly isRevoked?: ((entry: TokenEntry) => boolean) | undefined;
  /**
   * Token scan seam, findTokens (the strict grammar) by default. Token repair plugs in
   * findTokensLenient (domain/repair) here; any scan must return ordered, non-overlapping
   * candidates whose `raw` is `output.slice(start, end)`.
   */
  readonly scan?: ((text: string) => readonly TokenCandidate[]) | undefined;
  /**
   * The rendering context of everything restored before this text (a stream's earlier pieces, a
   * paragraph's earlier runs); it is advanced over this text. A fresh context when omitted.
   */
  readonly markup?: MarkupContext | undefined;
}

export interface RehydrateResult {
  readonly restoredText: string;
  readonly tokensResolved: number;
  readonly tokensUnresolved: UnresolvedToken[];
}

export function indexEntries(entries: readonly TokenEntry[]): Map<string, TokenEntry> {
  const map = new Map<string, TokenEntry>();
  for (const entry of entries) map.set(entry.id, entry);
  return map;
}

export function rehydrateText(input: RehydrateInput): RehydrateResult {
  const { output, entries, policy } = input;
  const candidates = (input.scan ?? findTokens)(output);
  if (candidates.length === 0) {
    // A shared context must still see the text; a fresh one has nothing left to decide.
    input.markup?.feed(output);
    return { restoredText: output, tokensResolved: 0, tokensUnresolved: [] };
  }
  const markup = input.markup ?? new MarkupContext();
  const parts: string[] = [];
  const unresolved: UnresolvedToken[] = [];
  let resolved = 0;
  let cursor = 0;
  for (const candidate of candidates) {
    const token = candidate.token;
    if (token === null) {
      unresolved.push({ token: candidate.raw, reason: 'malformed' });
      continue;
    }
    const entry = entries.get(token.id);
    // Compare the cap even when the id or type is wrong, so the work done does not reveal
    // which part failed.
    const capOk = capsEqual(entry?.cap ?? '', token.cap);
    if (entry === undefined || entry.type !== token.type || !capOk) {
      unresolved.push({ token: candidate.raw, reason: 'unknown' });
      continue;
    }
    const before = output.slice(cursor, candidate.start);
    parts.push(before);
    markup.feed(before);
    cursor = candidate.end;
    resolved += 1;
    let restored: string;
    if (input.isRevoked?.(entry) === true) {
      restored = DELETED;
    } else {
      // Caller-dependent rules are re-decided for this (the rehydrating) caller; inside a URL or
      // markup the channel's url_restore_mode clamps.
      const { mode, strategy: strategyName } = policy.resolveRestore({
        entry,
        caller: input.caller,
        requested: input.requestedMode,
        tokenOverride: input.tokenOverrides?.[entry.id],
        channel: input.channel,
        // Right of the token too: `{{…}}.evil.example/` puts the value in a link's host.
        inMarkup: markup.active || gluedTail(output, candidate.end, true).verdict !== 'plain',
      });
      const strategy = strategyName !== undefined ? policy.strategy(strategyName) : undefined;
      restored = restoreValue(entry, mode, {
        language: input.language,
        ...(strategy !== undefined ? { strategy } : {}),
        ...(input.templates !== undefined ? { templates: input.templates } : {}),
      });
    }
    parts.push(restored);
    // The value as rendered is context too: a restored URL can open one for the next token.
    markup.feed(restored);
  }
  const rest = output.slice(cursor);
  parts.push(rest);
  if (input.markup !== undefined) markup.feed(rest);
  return { restoredText: parts.join(''), tokensResolved: resolved, tokensUnresolved: unresolved };
}
