// Restore-mode ordering and the built-in channel ceilings (decisions.md section 7). Shared by
// the policy validator (channel_rules may only tighten a built-in ceiling) and the server's
// policy engine, so both order modes the same way.
import type { BuiltinChannel, RestoreMode } from '../vocabulary.js';

/** Safe-sink ceiling of each built-in output channel. */
export const BUILTIN_CHANNEL_CEILINGS: Readonly<Record<BuiltinChannel, RestoreMode>> = Object.freeze({
  user_output: 'full',
  tool_payload: 'full',
  internal_summary: 'partial',
  customer_email: 'partial',
  export: 'masked',
  log_safe: 'none',
});

/**
 * Ceiling of a token restored inside a URL, a link or image target or an HTML tag (where a
 * rendered value leaves: an image fetch, a link), unless the channel's rule sets
 * `url_restore_mode`: the localized label, never the value or a part of it.
 */
export const DEFAULT_URL_RESTORE_MODE: RestoreMode = 'abstract';

export function isBuiltinChannel(channel: string): channel is BuiltinChannel {
  return Object.hasOwn(BUILTIN_CHANNEL_CEILINGS, channel);
}

/**
 * How much a mode reveals, larger is more: `full` = `formatted` (5) > `partial` (4) >
 * `masked` (3) > `abstract` (2) > `none` (1).
 */
export function modeRank(mode: RestoreMode): number {
  switch (mode) {
    case 'full':
    case 'formatted':
      return 5;
    case 'partial':
      return 4;
    case 'masked':
      return 3;
    case 'abstract':
      return 2;
    case 'none':
      return 1;
  }
}

/**
 * The less revealing of two modes. `full` and `formatted` reveal the same value; between them
 * `formatted` wins (it is a presentation the policy or caller asked for), so clamping
 * `formatted` to a `full` ceiling stays `formatted`, and a `formatted` ceiling turns `full`
 * into `formatted`. Commutative.
 */
export function tightest(a: RestoreMode, b: RestoreMode): RestoreMode {
  const rankA = modeRank(a);
  const rankB = modeRank(b);
  if (rankA !== rankB) return rankA < rankB ? a : b;
  if (a === 'formatted' || b === 'formatted') return 'formatted';
  return a;
}
