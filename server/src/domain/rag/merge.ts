// Merging token maps for /v1/rag/context (interface.md 4.12): the query session's entries and
// those of each admitted document session (chunk_session_state) become one context session.
// Every rule fails closed:
// - a token id that another slot maps to a different type or (normalized) value is refused;
// - the same token with a different cap in two slots (a cap disagreement) is refused;
// - an entry the slot's owner could not have issued (`owns` says no: in a corpus, a token that
//   this tenant and corpus do not derive for its value) is refused as conflicting ownership;
// - restoration is never widened: each entry is tightened to the active context policy, and an
//   entry from a session under another policy is pinned so that policy's caller overrides
//   cannot lift it above what its own session allowed;
// - a partial restore whose strategy is ambiguous (two policies, or two strategies) becomes
//   masked, since which of two partial formats reveals less is not knowable here.
// Pure: the policy and the ownership check are passed in. Messages name the slot, never a value.
import { VeilError } from '@veil/common';
import type { CompiledPolicy } from '../policy/index.js';
import { tightest } from '../policy/index.js';
import { capsEqual, normalizeValue } from '../token/index.js';
import type { RequestContext, RestoreMode, TokenEntry } from '../types.js';

export interface MergeSource {
  /** Request field the entries came from, for messages: `session_state`, `document_sessions[2]`. */
  readonly slot: string;
  /** Name of the policy the source session was issued under. */
  readonly policy: string;
  readonly entries: readonly TokenEntry[];
}

export interface MergeOptions {
  /** The active context policy every merged entry is tightened to. */
  readonly policy: CompiledPolicy;
  /** Context of the request that will send the merged tokens onward (destination, caller). */
  readonly context: RequestContext;
  /** Ownership check; entries it rejects fail the merge. */
  readonly owns?: ((entry: TokenEntry) => boolean) | undefined;
}

function conflict(slot: string, what: string): VeilError {
  return new VeilError('VEIL_VALIDATION_FAILED', `${slot}: ${what}`);
}

/**
 * An entry tightened to the active policy. The decision for its value under the active policy
 * and context is a second floor; a `deny` there refuses the request (as at transform time).
 */
export function tightenEntry(entry: TokenEntry, sourcePolicy: string, options: MergeOptions): TokenEntry {
  const decision = options.policy.decide(entry.type, options.context, entry.value);
  if (decision.action === 'deny') {
    throw new VeilError(
      'VEIL_POLICY_DENIED',
      `request denied by policy rule '${decision.rule_matched}' for entity type '${decision.entity_type}'`,
    );
  }
  const samePolicy = sourcePolicy === options.policy.name;
  // Under another policy the source's own tightening (override) is folded into the floor.
  const base: RestoreMode = samePolicy || entry.override === undefined ? entry.mode : tightest(entry.mode, entry.override);
  let mode = tightest(base, decision.restore_mode);
  let strategy: string | undefined;
  if (mode === 'partial') {
    const formats: (string | undefined)[] = [];
    // A strategy name of another policy cannot be resolved against the active one.
    if (base === 'partial' && !samePolicy && entry.strategy !== undefined) mode = 'masked';
    else if (base === 'partial') formats.push(entry.strategy);
    if (decision.restore_mode === 'partial') formats.push(decision.restore_strategy);
    if (mode === 'partial') {
      if (formats.every((name) => name === formats[0])) strategy = formats[0];
      else mode = 'masked';
    }
  }
  return {
    id: entry.id,
    type: entry.type,
    cap: entry.cap,
    value: entry.value,
    mode,
    ...(strategy !== undefined ? { strategy } : {}),
    // Same policy: its own caller overrides apply as they did at the source. Another policy:
    // pinned at the tightened floor, so the active policy's overrides cannot widen it.
    ...(samePolicy ? (entry.override !== undefined ? { override: entry.override } : {}) : { override: mode }),
  };
}

/** Two tightened entries for the same token: the tighter of everything. */
function combine(first: TokenEntry, second: TokenEntry): TokenEntry {
  const mode = tightest(first.mode, second.mode);
  let strategy: string | undefined;
  let finalMode = mode;
  if (mode === 'partial') {
    const strategies = [first, second].filter((entry) => entry.mode === 'partial').map((entry) => entry.strategy);
    if (strategies.every((name) => name === strategies[0])) strategy = strategies[0];
    else finalMode = 'masked';
  }
  const overrides = [first.override, second.override].filter((value): value is RestoreMode => value !== undefined);
  const override = overrides.length === 0 ? undefined : overrides.reduce((a, b) => tightest(a, b));
  return {
    id: first.id,
    type: first.type,
    cap: first.cap,
    value: first.value,
    mode: finalMode,
    ...(strategy !== undefined ? { strategy } : {}),
    ...(override !== undefined ? { override } : {}),
  };
}

/** Accumulates sources in order; the first occurrence of a token keeps its raw value. */
export class SessionMerger {
  readonly #options: MergeOptions;
  readonly #byId = new Map<string, { entry: TokenEntry; normalized: string; slot: string }>();

  constructor(options: MergeOptions) {
    this.#options = options;
  }

  add(source: MergeSource): void {
    for (const raw of source.entries) {
      if (this.#options.owns !== undefined && !this.#options.owns(raw)) {
        throw conflict(source.slot, 'holds a token this tenant and corpus did not issue (conflicting ownership)');
      }
      const entry = tightenEntry(raw, source.policy, this.#options);
      const normalized = normalizeValue(entry.type, entry.value);
      const known = this.#byId.get(entry.id);
      if (known === undefined) {
        this.#byId.set(entry.id, { entry, normalized, slot: source.slot });
        continue;
      }
      if (known.entry.type !== entry.type) throw conflict(source.slot, `token id collides with a different entity type in ${known.slot}`);
      if (known.normalized !== normalized) throw conflict(source.slot, `token id collides with a different value in ${known.slot}`);
      if (!capsEqual(known.entry.cap, entry.cap)) throw conflict(source.slot, `cap disagrees with ${known.slot} for the same token`);
      known.entry = combine(known.entry, entry);
    }
  }

  entries(): TokenEntry[] {
    return [...this.#byId.values()].map((item) => item.entry);
  }
}
