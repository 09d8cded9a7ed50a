// Per-call scan state shared by the built-in detectors: the text, the candidate list they append
// to, the phone regions derived from the language hint, and small caches that keep the scan
// linear (the next PEM END marker).
import type { Detection } from '../types.js';

export interface ScanState {
  readonly text: string;
  readonly out: Detection[];
  /** Region for national phone formats, from the language hint (en -> US, de -> DE, ...). */
  readonly region: string;
  /** Extra regions tried for national numbers with a trunk prefix (07..., 0171 ...). */
  readonly fallbackRegions: readonly string[];
  /** Cached position of the next "-----END " (-2: not searched yet, -1: none left). */
  pemEndAt: number;
  /** End of the furthest key=value value scanned; separators inside it are not re-examined. */
  assignScanEnd: number;
  /** BIC candidates without a context word; kept if an IBAN is found near them. */
  readonly bicPending: Detection[];
  /** Word starts where a number may be written with look-alike letters (lookalike-digits.ts). */
  readonly lookalikeSeeds: number[];
  /** Runs of digit groups (start, end pairs) where no value was found, read reversed (reversed.ts). */
  readonly reversedSeeds: number[];
}

export function emit(state: ScanState, type: string, start: number, end: number, confidence: number): void {
  state.out.push({
    type,
    start,
    end,
    value: state.text.slice(start, end),
    confidence: confidence > 1 ? 1 : Math.round(confidence * 1000) / 1000,
    detector: 'builtin_regex',
  });
}
