// The normalized view the output guard matches on: the session's own values (known.ts), the
// labelled values (labelled.ts) and the context words around a finding (risk.ts) are looked up
// in this view, never in the raw characters, so that every spelling the normalization treats as
// equal matches. The view is the folded text of domain/text/fold.ts (NFKC, digits of every
// script, Unicode dashes, invisible characters dropped: issue 18 item 5), the same folding
// detection and revocation use, with an exact map from view offsets back to the original: a
// value the model writes in full-width digits or with en dashes is masked where it stands.
import { foldWithOffsets } from '../text/fold.js';

/** A view of a text with offsets that map back to the original. */
export interface GuardView {
  readonly text: string;
  /** True when the view is the original text (offsets are the same). */
  readonly identity: boolean;
  /** The original span of view[start, end). */
  originalSpan(start: number, end: number): { start: number; end: number };
}

/** The view the guard matches on (pure-ASCII text is returned as is, without allocating). */
export const guardView: (text: string) => GuardView = foldWithOffsets;
