// Quoted-printable escapes inside a connection string after its scheme (session 15, wave14/evade2):
// `postgres://admin=3As3cret=40db.example.com/app`, `postgres:=2F=2Fadmin:s3cret=40db…` are the
// connection string `postgres://admin:s3cret@db.example.com/app`. The detectors report them whole
// (detect/connection.ts, detect/qp-joined.ts); normalization (token/normalize.ts) reads them here so
// each spelling is one token and one erasure with the plain string.
//
// Only the punctuation a connection string's scheme, userinfo and host are written with is decoded
// (`=3A` `:`, `=2F` `/`, `=40` `@`, `=3D` `=`, upper-case hex as quoted-printable writes it), and only
// before the query: `?connect_timeout=40` or `?x=3D` there are a parameter's own value.

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]{1,30}(?::|=3A)(?:\/|=2F)(?:\/|=2F)/;
const ESCAPE = /=(3A|2F|40|3D)/g;
const DECODED: Readonly<Record<string, string>> = { '3A': ':', '2F': '/', '40': '@', '3D': '=' };

/** `value` with the escapes of its scheme, userinfo and host decoded, or `value` itself (no scheme, no escape). */
export function decodeQpConnection(value: string): string {
  const escaped = PERCENT_SCHEME.exec(value);
  if (escaped !== null && escaped[0].includes('%')) return decodeEscapedRun(value);
  if (!value.includes('=') || !SCHEME.test(value)) return value;
  const query = value.indexOf('?');
  const head = query < 0 ? value : value.slice(0, query);
  const tail = query < 0 ? '' : value.slice(query);
  return head.replace(ESCAPE, (_escape, hex: string) => DECODED[hex] ?? _escape) + tail;
}

// A scheme whose `://` holds a percent escape (session 16: detect/escaped-scheme.ts reports
// `postgres%3A%2F%2Fadmin%3As3cret%40db…` and `postgres=3A%2F=2Fadmin…` whole, reading the escapes of
// URL punctuation in the whole run, percent or quoted-printable). Normalization reads the run the
// same way, so each spelling is one token and one erasure with the plain string. A plain `://`
// never takes this path: `%40` in a plain string's password is that password's own encoding.
const PERCENT_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]{1,30}(?:%3[Aa]|=3A)(?:\/|%2[Ff]|=2F)(?:\/|%2[Ff]|=2F)/;
/** The URL punctuation escape-scheme reading decodes (detect/escaped-scheme.ts DECODED). */
const RUN_DECODED: Readonly<Record<string, string>> = { '3A': ':', '2F': '/', '40': '@', '2E': '.', '3D': '=', '3F': '?', '26': '&', '23': '#', '25': '%' };
const RUN_ESCAPE = /%([0-9A-Fa-f]{2})|=([0-9A-F]{2})/g;

function decodeEscapedRun(value: string): string {
  return value.replace(RUN_ESCAPE, (escape, percent: string | undefined, qp: string | undefined) => RUN_DECODED[(percent ?? qp)!.toUpperCase()] ?? escape);
}
