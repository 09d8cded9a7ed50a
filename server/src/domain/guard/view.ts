// The normalized view the output guard matches on: the session's own values (known.ts) and the
// context words around a finding (risk.ts, labelled.ts) are looked up in this view, never in
// the raw characters, so that every spelling the normalization treats as equal matches. Today
// the view is the text itself; Unicode folding (full-width forms, digits of every script,
// Unicode dashes: issue 18 item 5) plugs in here as the one function below, with the same
// shape (a text plus an exact map from view offsets back to the original).

/** A view of a text with offsets that map back to the original. */
export interface GuardView {
  readonly text: string;
  /** True when the view is the original text (offsets are the same). */
  readonly identity: boolean;
  /** The original span of view[start, end). */
  originalSpan(start: number, end: number): { start: number; end: number };
}

function identityView(text: string): GuardView {
  return { text, identity: true, originalSpan: (start, end) => ({ start, end }) };
}

/** The view the guard matches on. The one place a folding function is plugged in. */
export const guardView: (text: string) => GuardView = identityView;
