// Connection strings with credentials: `scheme://user:password@host/...` for databases, queues,
// caches, directories and mail servers (postgres, mysql, mongodb+srv, redis, amqp, ldap, smtp,
// jdbc:<driver>:// ...), found at the scheme word. Any scheme with a real password in the
// userinfo counts (http(s) URLs with credentials are reported the same way by url.ts); a URI
// without a password is not a credential and is left alone. The whole URI is reported, because
// host, user and database name identify the system the password opens.
import { codeAt, F_DIGIT, F_LOWER, F_UPPER, FLAGS } from './chars.js';
import { emit, type ScanState } from './state.js';
import { isUrlChar, trimEnd, userinfoPassword } from './url.js';

const MAX_URI = 2048;
const MAX_SCHEME = 24;

function isSchemeChar(c: number): boolean {
  return (c < 128 && (FLAGS[c]! & (F_DIGIT | F_LOWER | F_UPPER)) !== 0) || c === 43 || c === 46 || c === 45;
}

/**
 * At a word [start, wordEnd) followed by ':' or '+': a URI whose userinfo holds a password.
 * Returns the end of the expansion looked at (once "scheme://" matched), or -1.
 */
export function detectConnectionString(state: ScanState, start: number, wordEnd: number): number {
  const text = state.text;
  // Scheme: the word plus "+srv" / ".x" / "-x" continuations, then "://"; "jdbc:" wraps another scheme.
  let pos = wordEnd;
  while (pos - start <= MAX_SCHEME && isSchemeChar(codeAt(text, pos))) pos++;
  if (codeAt(text, pos) !== 58) return -1;
  if (pos - start === 4 && text.slice(start, pos).toLowerCase() === 'jdbc') {
    pos++;
    const inner = pos;
    while (pos - inner <= MAX_SCHEME && isSchemeChar(codeAt(text, pos))) pos++;
    if (pos === inner || codeAt(text, pos) !== 58) return -1;
  }
  if (codeAt(text, pos + 1) !== 47 || codeAt(text, pos + 2) !== 47) return -1;
  const authorityStart = pos + 3;
  let end = authorityStart;
  while (end < text.length && end - start < MAX_URI && isUrlChar(text.charCodeAt(end))) end++;
  const expansionEnd = end;
  end = trimEnd(text, authorityStart, end);
  // Like url.ts, the caller resumes after the whole expansion either way, so a flood of
  // "postgres://a:postgres://a:..." is looked at once, not once per scheme word.
  if (end > authorityStart && (userinfoPassword(text, authorityStart, end) || unencodedPassword(text, authorityStart, end))) {
    emit(state, 'connection_string', start, end, 0.95);
  }
  return expansionEnd;
}

/**
 * A password written without percent-encoding (`app:FC3QL4#ZTVW@host`, `admin:a?b@host`): the
 * userinfo runs to the last '@' before the path, so '?' and '#' inside it do not end the
 * authority. Checked like an encoded one.
 */
function unencodedPassword(text: string, authorityStart: number, end: number): boolean {
  let slash = authorityStart;
  while (slash < end && text.charCodeAt(slash) !== 47) slash++;
  const authority = text.slice(authorityStart, slash);
  const at = authority.lastIndexOf('@');
  const colon = authority.indexOf(':');
  if (at <= 0 || colon < 0 || colon > at) return false;
  const encoded = `${authority.slice(0, at).replace(/[?#]/g, (ch) => encodeURIComponent(ch))}${authority.slice(at)}`;
  return userinfoPassword(encoded, 0, encoded.length);
}
