// What is glued to the right of a token can make it part of a link too (red team, session 11):
// `{{email:…}}.evil.example/` is a fuzzy link whose host starts with the restored value, and
// `{{person:…}}@evil.example` an e-mail address (a mailto link) whose local part is the value. The
// MarkupContext reads left to right and decides at the token, so it cannot see either; this
// reads the text right of a token up to where a linkifier would stop (ASCII whitespace, quotes,
// brackets, `<`, `>`; at most MAX_GLUED_TAIL characters), with string escapes and character
// references decoded and other tokens read as a letter, and says whether the token sits in a host
// name or an address:
//
// - `.label.tld…` (two labels or more after a dot: `.evil.example`, `.co.uk`),
// - `.tld` followed by `/`, `?`, `#` or `:port` (`.com/`),
// - `@host.tld` (an address),
// each possibly after more label characters glued to the token (`{{a}}x.evil.example/`).
// A single label after a dot (`{{person}}.Net`, a sentence's full stop) is not a host.
//
// The verdict may need text that has not arrived yet (a stream): `open` until the glued text
// ends. StreamRehydrator holds a token while its verdict is open and the stream output guard
// never cuts between a token and the end of its glued text, so each piece a token is restored in
// holds the text that decides it; at the end of the whole output an open verdict is read as is.
import { decodeEntity, EscapeDecoder } from './markup-context.js';

/** Longest text right of a token that is read. */
export const MAX_GLUED_TAIL = 256;

export type TailVerdict = 'linked' | 'plain' | 'open';

/** Where the glued text right of a token ends: ASCII whitespace and what ends an autolink. */
const STOP = /[\t\n\v\f\r "'`<>()[\]]/g;

/** Characters a host label or an address's local part may hold (any script, as IDN hosts). */
const LABEL = String.raw`[\p{L}\p{N}_-]`;
const GLUED_HOST = new RegExp(
  String.raw`^[\p{L}\p{N}_+%-]*(?:\.(?:${LABEL}{1,63}\.)+\p{L}{2,63}(?!${LABEL})|\.\p{L}{2,63}(?:[/?#]|:\d)|(?:\.${LABEL}{1,63})*@${LABEL}{1,63}(?:\.${LABEL}{1,63})*\.\p{L}{2,63})`,
  'u',
);
/** Can the glued text still become one of those (its first character, decoded)? */
const MAY_START = /^[\p{L}\p{N}_+%.@-]/u;
/** Token-shaped text inside the glued text: it restores to something, read as a letter. */
const TOKEN_LIKE = /\{\{[^{}]{1,200}\}\}/g;
const ENTITY = /&(#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,8});/g;

function decoded(raw: string): string {
  let text = raw.replace(TOKEN_LIKE, 'x');
  for (let level = 0; level < 2 && text.includes('\\'); level += 1) text = new EscapeDecoder().decode(text);
  return text.replace(ENTITY, (whole, name: string) => decodeEntity(name) ?? whole);
}

/**
 * The verdict for a token ending at `from` in `text`, and the index up to which the text was
 * needed (a stream must not release the token before that much has arrived). `final`: nothing
 * follows `text`, so glued text reaching its end is decided as it stands.
 */
export function gluedTail(text: string, from: number, final: boolean): { readonly verdict: TailVerdict; readonly end: number } {
  const limit = Math.min(text.length, from + MAX_GLUED_TAIL);
  STOP.lastIndex = from;
  const stop = STOP.exec(text);
  const end = stop === null || stop.index > limit ? limit : stop.index;
  const closed = end < text.length || end === from + MAX_GLUED_TAIL || final;
  const tail = decoded(text.slice(from, end));
  if (GLUED_HOST.test(tail)) return { verdict: 'linked', end };
  if (closed || (tail.length > 0 && !MAY_START.test(tail) && !/^[\\&{]/.test(text.slice(from, from + 1)))) return { verdict: 'plain', end };
  return { verdict: 'open', end };
}
