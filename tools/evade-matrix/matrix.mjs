// Probe matrix of input-side evasion (session 12, wave11/evade): value kinds × spellings, each
// sent to a real `veil serve` (POST /v1/transform, default policy) as text, as a JSON body
// (`input_json`) and as a chat body (`input_messages`); prints which spellings reach the model
// raw or partly raw. A cell reads `.` (nothing of the value left outside tokens in any mode),
// `p` (some letters or digits of the spelled value left in some mode), `R` (the spelled value
// left whole in some mode), `-` (the spelling does not apply to the value). The details list
// every `p` and `R` with what was left. Usage (BENCHMARKS.md, "Session 12 (wave11/evade)"):
//   npx tsc -b && node tools/evade-matrix/matrix.mjs [--url http://127.0.0.1:PORT] [--json out.json]
//     [--only KIND,...] [--spellings NAME,...] [--veil OTHER_TREE/server/bin/veil.js]
// Without --url it starts `server/bin/veil.js serve` (or the --veil given, e.g. a base build's) on a free loopback port (builtin detector
// mode) and stops it at the end. The values are fake (documentation and test numbers).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const option = (name) => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};

// ---------------------------------------------------------------------------------------------
// Values: [kind, label written before the value, value]. Checksums hold (Luhn, mod 97, …).
export const VALUES = [
  ['email', 'email me at', 'jane.doe@corp.example'],
  ['card', 'my card is', '4111 1111 1111 1111'],
  ['card-plain', 'card number', '5500000000000004'],
  ['ssn', 'my SSN is', '078-05-1120'],
  ['iban-de', 'IBAN', 'DE89 3704 0044 0532 0130 00'],
  ['iban-gb', 'IBAN', 'GB82 WEST 1234 5698 7654 32'],
  ['phone-us', 'call me at', '+1 415 555 0142'],
  ['phone-us-nat', 'my phone number is', '(415) 555-0142'],
  ['phone-uk', 'call me at', '+44 20 7946 0958'],
  ['phone-de', 'ruf mich an unter', '+49 30 90182044'],
  ['phone-fr', 'appelez-moi au', '+33 1 42 68 53 00'],
  ['phone-in', 'my mobile is', '+91 98765 43210'],
  ['phone-jp', 'my phone is', '+81 3-1234-5678'],
  ['ipv4', 'server ip', '81.2.69.160'],
  ['ipv6', 'server ip', '2a00:1450:4001:82a::200e'],
  ['mac', 'mac address', '00:1A:2B:3C:4D:5E'],
  ['uk-nino', 'my NI number is', 'AB123456C'],
  ['es-dni', 'DNI', '12345678Z'],
  ['br-cpf', 'CPF', '123.456.789-09'],
  ['us-passport', 'passport number', '912803456'],
  ['aws-key', 'aws key', 'AKIAQ3EGRT7VXZ4MPL2K'],
  ['github-pat', 'token', 'ghp_R7mK2pQ9xV4nL8wZ3cT6yB1hJ5dF0sG2aE9u'],
  ['openai-key', 'key', 'sk-proj-Xq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0Ga'],
  ['stripe-key', 'stripe', 'sk_live_51HqLm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs'],
  ['anthropic-key', 'key', 'sk-ant-api03-Xq7Lm2Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs0GaQ'],
  ['slack-token', 'slack', 'xoxb-2417350914-8812094412-Rt9Vb4Kp8Zc3Wn6Hy1Jd5Fs'],
  ['jwt', 'auth', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUgRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'],
  ['password', 'my password is', 'Tr0ub4dor&3x'],
  ['password-kv', 'password:', 'Hunter2!Blue'],
  ['btc', 'send to', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT'],
  ['eth', 'wallet', '0x52908400098527886E0F7030069857D2E4169EE7'],
  ['url-cred', 'db', 'postgres://admin:S3cretPw9@db.corp.example:5432/app'],
  ['dob', 'date of birth', '1985-03-04'],
];

// ---------------------------------------------------------------------------------------------
// Spellings: name → (value, kind) → spelled value (or undefined: does not apply). A spelling
// that returns {label, value} replaces the label too (a whole sentence encoded).
const chars = (value) => [...value];
const between = (sep) => (value) => chars(value).join(sep);
const mapChars = (f) => (value) => {
  const out = chars(value).map(f).join('');
  return out === value ? undefined : out;
};
const fullWidth = (c) => (c >= '!' && c <= '~' ? String.fromCodePoint(c.codePointAt(0) + 0xfee0) : c === ' ' ? '\u3000' : c);
const digitsIn = (base) => (c) => (c >= '0' && c <= '9' ? String.fromCodePoint(base + c.charCodeAt(0) - 48) : c);
const CYRILLIC = { a: 'а', e: 'е', o: 'о', p: 'р', c: 'с', y: 'у', x: 'х', A: 'А', B: 'В', E: 'Е', K: 'К', M: 'М', H: 'Н', O: 'О', P: 'Р', C: 'С', T: 'Т', X: 'Х' };
const LOOK_DIGITS = { 0: 'O', 1: 'l' };
const hex2 = (c) => c.codePointAt(0).toString(16).toUpperCase().padStart(2, '0');
const special = (c) => !/[A-Za-z0-9]/.test(c);
const groups = (value) => value.split(/([^A-Za-z0-9]+)/);
/** Kinds written as groups of digits (and letters): separators between groups apply to these only. */
const GROUPED = new Set(['card', 'card-plain', 'ssn', 'iban-de', 'iban-gb', 'phone-us', 'phone-us-nat', 'phone-uk', 'phone-de', 'phone-fr', 'phone-in', 'phone-jp', 'br-cpf']);
/** The value with its separators replaced by `sep` (no separator: every 4 characters); grouped kinds only. */
const regroup = (sep) => (value, _label, kind) => {
  if (!GROUPED.has(kind)) return undefined;
  if (/[^A-Za-z0-9]/.test(value)) {
    const out = value.replace(/[ \-.:/]+/g, sep);
    return out === value ? undefined : out;
  }
  if (value.length < 8) return undefined;
  return value.replace(/(.{4})(?=.)/g, `$1${sep}`);
};
/** The value cut in two halves (the first the shorter). */
const half = (value) => [value.slice(0, Math.floor(value.length / 2)), value.slice(Math.floor(value.length / 2))];
const b64 = (s) => Buffer.from(s, 'utf8').toString('base64');
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const base32 = (s) => {
  const bytes = Buffer.from(s, 'utf8');
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out + '='.repeat((8 - (out.length % 8)) % 8);
};
const DIGIT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

export const SPELLINGS = [
  ['plain', (v) => v],
  ['zwsp', between('\u200b')],
  ['zwj+wj', (v) => chars(v).map((c, i) => (i % 2 ? '\u2060' : '\u200d') + c).join('')],
  ['soft-hyphen', between('\u00ad')],
  ['fullwidth', mapChars(fullWidth)],
  ['arabic-digits', mapChars(digitsIn(0x660))],
  ['devanagari', mapChars(digitsIn(0x966))],
  ['math-digits', mapChars(digitsIn(0x1d7ce))],
  ['cyrillic', mapChars((c) => CYRILLIC[c] ?? c)],
  ['O0-l1', mapChars((c) => LOOK_DIGITS[c] ?? c)],
  ['spaced', between(' ')],
  ['spaced-seps', (v) => (/[A-Za-z0-9][^A-Za-z0-9]+[A-Za-z0-9]/.test(v) ? groups(v).map((g) => (/^[A-Za-z0-9]+$/.test(g) ? chars(g).join(' ') : ` ${g.trim() || '-'} `)).join('').replace(/ +/g, ' ').trim() : undefined)],
  ['plus-for-space', (v, _l, kind) => (GROUPED.has(kind) && v.includes(' ') ? v.replace(/ /g, '+') : undefined)],
  ['dash-each', (v) => (/^[0-9 \-+().]+$/.test(v) ? chars(v.replace(/[^0-9]/g, '')).join('-') : undefined)],
  ['dots', regroup('.')],
  ['slash', regroup('/')],
  ['underscore', regroup('_')],
  ['apostrophe', regroup("'")],
  ['pipe', regroup(' | ')],
  ['tab', regroup('\t')],
  ['nbsp', regroup('\u00a0')],
  ['thin', regroup('\u2009')],
  ['en-dash', regroup('\u2013')],
  ['newline-mid', (v) => (v.length < 8 ? undefined : `${v.slice(0, Math.floor(v.length / 2))}\n${v.slice(Math.floor(v.length / 2))}`)],
  // Session 13: a grouped number broken after its first separator (the break at a group's edge).
  ['newline-edge', (v, _label, kind) => (GROUPED.has(kind) && /[ \-.]/.test(v) ? v.replace(/([ \-.])/, '$1\n') : undefined)],
  ['crlf-mid', (v) => (v.length < 8 ? undefined : `${v.slice(0, Math.floor(v.length / 2))}\r\n${v.slice(Math.floor(v.length / 2))}`)],
  // Session 15 (wave14/evade2): a break with the next line's indentation; S for 5 and B for 8 in a
  // number (one of each at most); quoted-printable after a connection string's scheme.
  ['newline-indent', (v) => (v.length < 8 ? undefined : `${v.slice(0, Math.floor(v.length / 2))}\n    ${v.slice(Math.floor(v.length / 2))}`)],
  ['S5-B8', (v) => (/^[0-9 \-+().]+$/.test(v) && /[58]/.test(v) ? v.replace(/5/, 'S').replace(/8/, 'B') : undefined)],
  ['qp-scheme', (v) => (/^[a-z+]+:\/\/[^@/]+@/.test(v) ? v.replace(/^([a-z+]+:\/\/[^:@/]*):([^@/]*)@/, '$1=3A$2=40') : undefined)],
  ['ent-dec-all', (v) => chars(v).map((c) => `&#${c.codePointAt(0)};`).join('')],
  ['ent-hex-all', (v) => chars(v).map((c) => `&#x${hex2(c)};`).join('')],
  ['ent-special', mapChars((c) => (c === '@' ? '&commat;' : c === '.' ? '&period;' : special(c) && c !== ' ' ? `&#${c.codePointAt(0)};` : c))],
  ['pct-all', (v) => chars(v).map((c) => `%${hex2(c)}`).join('')],
  ['pct-special', mapChars((c) => (special(c) ? `%${hex2(c)}` : c))],
  ['u-escape-all', (v) => chars(v).map((c) => `\\u${hex2(c).padStart(4, '0')}`).join('')],
  ['u-escape-special', mapChars((c) => (special(c) ? `\\u${hex2(c).padStart(4, '0')}` : c))],
  ['x-escape-special', mapChars((c) => (special(c) ? `\\x${hex2(c)}` : c))],
  ['qp-special', mapChars((c) => (special(c) && c !== ' ' ? `=${hex2(c)}` : c))],
  ['qp-all', (v) => chars(v).map((c) => `=${hex2(c)}`).join('')],
  // Session 14: quoted-printable mixed with percent escapes or HTML references, punctuation only.
  ['qp+pct-mix', (v) => {
    let k = 0;
    return mapChars((c) => (special(c) && c !== ' ' ? (k++ % 2 ? `%${hex2(c)}` : `=${hex2(c)}`) : c))(v);
  }],
  ['qp+ent-mix', (v) => {
    let k = 0;
    return mapChars((c) => (special(c) && c !== ' ' ? (k++ % 2 ? `&#${c.codePointAt(0)};` : `=${hex2(c)}`) : c))(v);
  }],
  ['base64', (v) => b64(v)],
  ['base64-sentence', (v, label) => ({ label: 'decode:', value: b64(`${label} ${v}`) })],
  ['hex', (v) => Buffer.from(v).toString('hex')],
  ['hex-sentence', (v, label) => ({ label: 'decode:', value: Buffer.from(`${label} ${v}`).toString('hex') })],
  ['base32', (v) => base32(v)],
  ['reversed', (v) => chars(v).reverse().join('')],
  // The reversed label words (`si NSS ym`) are prose: only the value's characters count (session 13).
  // Session 13: the value written backwards, then its label written backwards after a colon.
  ['reversed-kv', (v, label) => ({ label: 'note', value: `${chars(v).reverse().join('')} :${chars(label).reverse().join('')}`, prose: `:${chars(label).reverse().join('')}` })],
  ['reversed-sentence', (v, label) => ({ label: 'read backwards:', value: chars(`${label} ${v}`).reverse().join(''), prose: chars(label).reverse().join('') })],
  ['markup-b', (v) => `${v.slice(0, Math.floor(v.length / 2))}<b></b>${v.slice(Math.floor(v.length / 2))}`],
  ['markup-span', (v) => `<span>${v.slice(0, Math.floor(v.length / 2))}</span><span>${v.slice(Math.floor(v.length / 2))}</span>`],
  ['md-bold-mid', (v) => `**${v.slice(0, Math.floor(v.length / 2))}**${v.slice(Math.floor(v.length / 2))}`],
  // Session 14: other markup inside the value (a comment, BBCode, a markdown link, code marks,
  // strikethrough, a tag with attributes).
  ['markup-comment', (v) => `${half(v)[0]}<!-- -->${half(v)[1]}`],
  ['bbcode-mid', (v) => `${half(v)[0]}[b][/b]${half(v)[1]}`],
  ['md-link-mid', (v) => `[${half(v)[0]}](x)${half(v)[1]}`],
  ['md-code-mid', (v) => `\`${half(v)[0]}\`${half(v)[1]}`],
  ['md-strike-mid', (v) => `~~${half(v)[0]}~~${half(v)[1]}`],
  ['markup-attr', (v) => `${half(v)[0]}<span class="x">${half(v)[1]}</span>`],
  ['words-at-dot', (v) => (v.includes('@') ? v.replace('@', ' at ').replace(/\./g, ' dot ') : undefined)],
  ['words-bracket', (v) => (v.includes('@') ? v.replace('@', ' [at] ').replace(/\./g, ' [dot] ') : undefined)],
  ['split-before-dot', (v) => (v.includes('@') ? v.replace(/\.(?=[a-z]+$)/, ' .') : undefined)],
  ['digit-words', (v) => (/^[0-9 \-+().]+$/.test(v) ? chars(v.replace(/[^0-9]/g, '')).map((d) => DIGIT_WORDS[Number(d)]).join(' ') : undefined)],
  ['concat-js', (v) => `"${v.slice(0, Math.floor(v.length / 2))}" + "${v.slice(Math.floor(v.length / 2))}"`],
  ['fw+zwsp', (v) => chars(v).map(fullWidth).join('\u200b')],
  ['ent+spaced', (v) => chars(v).map((c) => (special(c) ? `&#${c.codePointAt(0)};` : c)).join(' ')],
  ['cyr+O0', mapChars((c) => CYRILLIC[c] ?? LOOK_DIGITS[c] ?? c)],
  // Session 14: the look-alike digits in other scripts: Greek capital omicron for 0 (and `l`),
  // full-width letters, mathematical bold letters.
  ['greek-O0', mapChars((c) => (c === '0' ? 'Ο' : c === '1' ? 'l' : c))],
  ['fw-O0-l1', mapChars((c) => (c === '0' ? 'Ｏ' : c === '1' ? 'ｌ' : c))],
  ['math-O0-l1', mapChars((c) => (c === '0' ? '𝐎' : c === '1' ? '𝐥' : c))],
  // Session 15: capital I for 1 and small o for 0, and a Cyrillic capital O for 0 (a group of it
  // alone stays Cyrillic through the fold).
  ['I1-o0', mapChars((c) => (c === '0' ? 'o' : c === '1' ? 'I' : c))],
  ['cyrO0-l1', mapChars((c) => (c === '0' ? 'О' : c === '1' ? 'l' : c))],
  // Session 19 (wave18/evade): a combining mark after every character (a long stroke overlay
  // U+0336, strikethrough text generators' spelling), and one after every other character (an
  // acute U+0301: the marks a model reads past).
  ['combining', (v) => chars(v).map((c) => `${c}\u0336`).join('')],
  ['combining-alt', (v) => chars(v).map((c, i) => (i % 2 ? `${c}\u0301` : c)).join('')],
];

// ---------------------------------------------------------------------------------------------
const TOKEN = /\{\{[a-z_]+:[a-z]+_\d+(?::[0-9a-f]+)?\}\}|\[[A-Z_]+(?::[a-z_]+)?\]/g;
const ALNUM = /[\p{L}\p{N}]/gu;
const SUFFIX = ' ok thanks';

/** What the spelled value left outside tokens, as `{kind: 'ok'|'partial'|'raw', left}`. */
function judge(safe, label, spelled, prose) {
  let middle = safe;
  if (middle.startsWith(`${label} `)) middle = middle.slice(label.length + 1);
  if (middle.endsWith(SUFFIX)) middle = middle.slice(0, -SUFFIX.length);
  if (middle === spelled) return { kind: 'raw', left: spelled };
  // Markup the spelling added (tags, emphasis) is no part of the value.
  let left = middle.replace(TOKEN, ' ').replace(/<\/?[a-z]+(?: [a-z]+="[a-z]+")?>|<!-- -->|\[\/?b\]|\]\(x\)|\*\*|~~|`/g, ' ').trim();
  // Only letters and digits of the spelling itself count (the label word `decode:` is prose, and
  // so are label words the spelling carries inside it: `prose`).
  if (prose !== undefined) left = left.replace(prose, ' ').trim();
  const count = (left.match(ALNUM) ?? []).length;
  if (count === 0) return { kind: 'ok', left: '' };
  const whole = ((prose === undefined ? spelled : spelled.replace(prose, '')).match(ALNUM) ?? []).length;
  return { kind: count >= whole ? 'raw' : 'partial', left };
}

async function post(url, body) {
  const response = await fetch(`${url}/v1/transform`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 200) return { error: `${response.status} ${text.slice(0, 120)}` };
  return JSON.parse(text);
}

async function probe(url, label, spelled, prose) {
  const input = `${label} ${spelled}${SUFFIX}`;
  const [text, json, chat] = await Promise.all([
    post(url, { input }),
    post(url, { input_json: { note: input } }),
    post(url, { input_messages: [{ role: 'user', content: input }] }),
  ]);
  const results = {
    text: text.error ? { kind: 'error', left: text.error } : judge(text.safe_text, label, spelled, prose),
    json: json.error ? { kind: 'error', left: json.error } : judge(json.safe_json?.note ?? '', label, spelled, prose),
    chat: chat.error ? { kind: 'error', left: chat.error } : judge(chat.safe_messages?.[0]?.content ?? "", label, spelled, prose),
  };
  const order = { ok: 0, partial: 1, raw: 2, error: 3 };
  const worst = Object.values(results).reduce((a, b) => (order[b.kind] > order[a.kind] ? b : a));
  return { worst, results, types: (text.entities ?? []).map((e) => e.type) };
}

async function startServer() {
  const bin = option('--veil') ?? fileURLToPath(new URL('../../server/bin/veil.js', import.meta.url));
  const child = spawn(process.execPath, [bin, 'serve', '--host', '127.0.0.1', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', VEIL_LOG_FORMAT: 'json', VEIL_SERVER__WORKERS: '1', VEIL_SESSION_SECRET: '5e'.repeat(32)},
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      const match = /"url":"(http:[^"]+)"/.exec(buffered);
      if (match && buffered.includes('veil server listening')) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`veil serve exited with ${code}`)));
  });
  child.stdout.resume();
  return { url, stop: () => child.kill('SIGTERM') };
}

const only = option('--only')?.split(',');
const onlySpellings = option('--spellings')?.split(',');
const server = option('--url') === undefined ? await startServer() : { url: option('--url'), stop: () => {} };
try {
  const values = VALUES.filter(([kind]) => only === undefined || only.includes(kind));
  const spellings = SPELLINGS.filter(([name]) => onlySpellings === undefined || onlySpellings.includes(name));
  const table = [];
  for (const [kind, label, value] of values) {
    const row = { kind, cells: {} };
    const jobs = spellings.map(async ([name, spell]) => {
      const made = spell(value, label, kind);
      if (made === undefined || (name !== 'plain' && made === value)) {
        row.cells[name] = { mark: '-' };
        return;
      }
      const { label: useLabel, value: spelled, prose } = typeof made === 'string' ? { label, value: made } : made;
      const { worst, results, types } = await probe(server.url, useLabel, spelled, prose);
      const mark = { ok: '.', partial: 'p', raw: 'R', error: 'E' }[worst.kind];
      row.cells[name] = { mark, spelled, left: worst.left, types, modes: Object.fromEntries(Object.entries(results).map(([m, r]) => [m, r.kind])) };
    });
    for (let i = 0; i < jobs.length; i += 8) await Promise.all(jobs.slice(i, i + 8));
    table.push(row);
  }
  // Table: one row per spelling, one column per value kind (kinds abbreviated by column number).
  const kinds = table.map((row) => row.kind);
  console.log('value kinds:', kinds.map((k, i) => `${i + 1}=${k}`).join(' '));
  const width = Math.max(...spellings.map(([n]) => n.length));
  console.log(`${''.padEnd(width)} ${kinds.map((_, i) => String(i + 1).padStart(2)).join(' ')}  leaks`);
  const totals = { '.': 0, p: 0, R: 0, E: 0 };
  for (const [name] of spellings) {
    const marks = table.map((row) => row.cells[name].mark);
    for (const m of marks) if (m in totals) totals[m]++;
    const leaks = marks.filter((m) => m === 'p' || m === 'R' || m === 'E').length;
    console.log(`${name.padEnd(width)} ${marks.map((m) => m.padStart(2)).join(' ')}  ${leaks}`);
  }
  console.log(`cells: ${totals['.']} tokenized, ${totals.p} partly raw, ${totals.R} raw, ${totals.E} errors`);
  console.log('\ndetails (p and R):');
  for (const row of table)
    for (const [name, cell] of Object.entries(row.cells))
      if (cell.mark === 'p' || cell.mark === 'R' || cell.mark === 'E')
        console.log(`${cell.mark} ${row.kind} / ${name}: sent ${JSON.stringify(cell.spelled).slice(0, 90)} left ${JSON.stringify(cell.left).slice(0, 90)} modes ${JSON.stringify(cell.modes)}`);
  const out = option('--json');
  if (out !== undefined) writeFileSync(out, JSON.stringify(table, null, 1));
} finally {
  server.stop();
}
