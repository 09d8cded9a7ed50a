// Passwords and tokens passed as command-line options ("curl -u admin:S3cr3t", "mysql -pS3cr3t",
// "sshpass -p 'S3cr3t' ssh …", "docker login -u bob -p S3cr3t", "redis-cli -a S3cr3t",
// "wget --password S3cr3t", "keytool -storepass S3cr3t"): people paste the command they ran
// into a chat or a ticket, and password.ts only reads `key=value` / `key: value`.
//
// Two kinds of option carry a secret:
//   - long options named for one (`--password`, `--token`, `--api-key`, `--client-secret`, ...,
//     and the single-dash `-password`/`-storepass` of Java-style tools) in every command, the
//     value being the next argument;
//   - short options of particular tools, where the letter means a password only there (`-p` is
//     a port to ssh and docker run, a password to sshpass and docker login; mysql's `-p` takes
//     the password glued, `mysql -p mydb` prompts): the tool is the first word of the command
//     segment the option stands in (after a line start, `|`, `;`, `&`, a backquote or `$(`; past
//     a prompt sign, variable assignments and wrappers such as sudo), with its subcommand when
//     the letter depends on it (`docker login`).
// A value that is a placeholder (`$PASS`, `<password>`, `***`, `YOUR_TOKEN`) or another option
// is no secret. For `user:password` forms (curl -u, smbclient -U user%pass, lftp -u user,pass,
// openssl pass:...) only the password is emitted. The scan collects the option starts it meets
// (scan.ts); the tool of each command segment is found once, so the pass is linear in the text.
import { isPlaceholder } from './password.js';
import { emit, type ScanState } from './state.js';

/** Longest value read (a token, a password); longer runs are data, not an argument. */
const MAX_VALUE = 256;
/** Longest option name read. */
const MAX_NAME = 40;

/** How a tool's option holds its secret. */
type Form =
  | 'next' // the next argument (or glued, for a one-letter option: -pS3cr3t)
  | 'glued' // glued only (mysql -pS3cr3t; a bare -p prompts)
  | 'colon' // user:password
  | 'percent' // user%password
  | 'comma' // user,password
  | 'pass-prefix'; // pass:password (openssl; env:/file: name no secret)

const PASSWORD_OPTIONS: ReadonlySet<string> = new Set([
  'password', 'passwd', 'passphrase', 'db-password', 'http-password', 'ftp-password', 'proxy-password', 'admin-password',
  'root-password', 'user-password', 'master-password', 'registry-password', 'new-password', 'old-password',
  'storepass', 'keypass', 'srcstorepass', 'deststorepass', 'srckeypass', 'destkeypass',
]);

const TOKEN_OPTIONS: ReadonlySet<string> = new Set([
  'token', 'secret', 'api-key', 'apikey', 'api-token', 'access-token', 'auth-token', 'bot-token', 'refresh-token',
  'session-token', 'oauth-token', 'private-token', 'personal-access-token', 'secret-key', 'secret-access-key',
  'client-secret', 'app-secret', 'webhook-secret', 'signing-secret', 'access-key-secret',
]);

/** Tools (or `tool subcommand`) whose short options carry a password. */
const TOOL_OPTIONS: ReadonlyMap<string, ReadonlyMap<string, Form>> = (() => {
  const table = new Map<string, Map<string, Form>>();
  const add = (tools: readonly string[], options: Record<string, Form>): void => {
    for (const tool of tools) table.set(tool, new Map(Object.entries(options)));
  };
  add(['mysql', 'mysqldump', 'mysqladmin', 'mysqlimport', 'mysqlshow', 'mysqlcheck', 'mariadb', 'mariadb-dump', 'mariadb-admin', '7z', '7za', 'rar', 'unrar'], { '-p': 'glued' });
  add(['sshpass'], { '-p': 'next' });
  add(['docker login', 'podman login', 'nerdctl login', 'buildah login', 'skopeo login', 'oras login', 'helm registry', 'az login', 'mongo', 'mongosh', 'mongodump', 'mongorestore', 'mongoexport', 'mongoimport'], { '-p': 'next' });
  add(['redis-cli'], { '-a': 'next' });
  add(['sqlcmd', 'bcp', 'mssql-cli', 'ipmitool', 'zip', 'unzip'], { '-P': 'next' });
  add(['ldapsearch', 'ldapadd', 'ldapmodify', 'ldapdelete', 'ldapwhoami', 'ldappasswd', 'ldapcompare', 'ldapmodrdn'], { '-w': 'next' });
  add(['snmpwalk', 'snmpget', 'snmpset', 'snmpbulkwalk', 'snmptrap'], { '-A': 'next', '-X': 'next' });
  add(['curl'], { '-u': 'colon', '--user': 'colon', '-U': 'colon', '--proxy-user': 'colon' });
  add(['smbclient', 'rpcclient', 'smbmap', 'smbget', 'smbcacls'], { '-U': 'percent', '--user': 'percent' });
  add(['lftp'], { '-u': 'comma' });
  add(['openssl'], { '-passin': 'pass-prefix', '-passout': 'pass-prefix', '-pass': 'pass-prefix', '-k': 'next' });
  return table;
})();

/** Words that run the command after them (their own options are skipped). */
const WRAPPERS: ReadonlySet<string> = new Set(['sudo', 'doas', 'env', 'time', 'exec', 'command', 'nohup', 'nice', 'xargs', 'watch', 'timeout']);

/** Options of the wrappers that take an argument (`sudo -u postgres psql`). */
const WRAPPER_ARGUMENT_OPTIONS: ReadonlySet<string> = new Set(['-u', '-g', '-n', '-C', '-h', '-p']);

function isSpace(c: number): boolean {
  return c === 32 || c === 9;
}

function isOptionChar(c: number): boolean {
  return (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 122) || c === 45 || c === 95;
}

/** May an option start at `index` (a `-`)? Called by the scan for every `-`; cheap. */
export function optionMayStart(text: string, index: number): boolean {
  const previous = index === 0 ? 32 : text.charCodeAt(index - 1);
  if (!(isSpace(previous) || previous === 10 || previous === 34 || previous === 39 || previous === 40 || previous === 96)) return false;
  let next = text.charCodeAt(index + 1);
  if (next === 45) next = text.charCodeAt(index + 2);
  return (next | 0x20) >= 97 && (next | 0x20) <= 122;
}

/** Characters that start a new command (a segment of a command line). */
function isSegmentBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 124 || c === 59 || c === 38 || c === 96 || c === 40;
}

/** The word at `pos` (up to white space or a segment break): [start, end). */
function wordEnd(text: string, pos: number, limit: number): number {
  let end = pos;
  while (end < limit && !isSpace(text.charCodeAt(end)) && !isSegmentBreak(text.charCodeAt(end))) end++;
  return end;
}

/** The tool of the command segment [from, limit): `tool` and `tool subcommand`, lower case. */
function toolOf(text: string, from: number, limit: number): { tool: string; sub: string } | undefined {
  let pos = from;
  let wrapped = false;
  for (let words = 0; words < 12; words++) {
    while (pos < limit && isSpace(text.charCodeAt(pos))) pos++;
    if (pos >= limit) return undefined;
    const end = wordEnd(text, pos, limit);
    const word = text.slice(pos, end);
    pos = end;
    // A prompt sign ($ # > %), a variable assignment (PGHOST=db), a wrapper and its options.
    if (word === '$' || word === '#' || word === '>' || word === '%' || word === 'PS>') continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
    if (wrapped && word.startsWith('-')) {
      if (WRAPPER_ARGUMENT_OPTIONS.has(word)) {
        while (pos < limit && isSpace(text.charCodeAt(pos))) pos++;
        pos = wordEnd(text, pos, limit);
      }
      continue;
    }
    if (WRAPPERS.has(word)) {
      wrapped = true;
      continue;
    }
    const tool = word.slice(word.lastIndexOf('/') + 1).replace(/\.exe$/i, '').toLowerCase();
    while (pos < limit && isSpace(text.charCodeAt(pos))) pos++;
    const sub = text.slice(pos, wordEnd(text, pos, limit)).toLowerCase();
    return { tool, sub };
  }
  return undefined;
}

/** `;` `)` backquote `.` `,` `:` */
function isClosing(c: number): boolean {
  return c === 59 || c === 41 || c === 96 || c === 46 || c === 44 || c === 58;
}

/** The argument at or after `pos` (spaces first when `spaced`): its value span, or undefined. */
function argumentAt(text: string, pos: number, spaced: boolean): { start: number; end: number } | undefined {
  if (spaced) {
    if (!isSpace(text.charCodeAt(pos))) return undefined;
    while (isSpace(text.charCodeAt(pos))) pos++;
  }
  const quote = text.charCodeAt(pos);
  if (quote === 34 || quote === 39) {
    const close = text.indexOf(String.fromCharCode(quote), pos + 1);
    if (close < 0 || close - pos - 1 > MAX_VALUE || close === pos + 1) return undefined;
    const newline = text.indexOf('\n', pos + 1);
    if (newline >= 0 && newline < close) return undefined;
    return { start: pos + 1, end: close };
  }
  let end = pos;
  while (end < text.length && end - pos <= MAX_VALUE && !isSpace(text.charCodeAt(end)) && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
  if (end - pos > MAX_VALUE) return undefined;
  // Shell punctuation that ends a command, and a sentence's comma or full stop, are not part of it.
  while (end > pos && isClosing(text.charCodeAt(end - 1))) end--;
  return end > pos ? { start: pos, end } : undefined;
}

/** A value that names no secret: another option, a placeholder, a variable or command substitution. */
function notASecret(value: string): boolean {
  const first = value.charCodeAt(0);
  if (first === 45 || first === 36) return true; // -option, $VAR / $(cmd)
  if (isPlaceholder(value)) return true;
  // An option's own spec (`docker build --secret id=npmrc,src=.npmrc`), not its value.
  if (/^[A-Za-z][A-Za-z0-9_-]*=/.test(value)) return true;
  // YOUR_TOKEN, API_KEY, PASSWORD: a variable's name in documentation.
  return /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value) || /^(?:your|my)[-_ ]?/i.test(value);
}

/** One word of prose ("the --token flag", "docker login -p is insecure"): no password. */
const PROSE_WORD = /^\p{L}[\p{Ll}\p{M}]*$/u;

/** Emit the secret part of [start, end) for `form`; returns the end of the emitted value or -1. */
function emitValue(state: ScanState, form: Form, type: string, start: number, end: number): number {
  const text = state.text;
  let from = start;
  if (form === 'colon' || form === 'percent' || form === 'comma') {
    const mark = text.indexOf(form === 'colon' ? ':' : form === 'percent' ? '%' : ',', start);
    if (mark < 0 || mark >= end) return -1;
    from = mark + 1;
  } else if (form === 'pass-prefix') {
    if (!text.startsWith('pass:', start)) return -1;
    from = start + 5;
  }
  if (from >= end) return -1;
  const value = text.slice(from, end);
  if (notASecret(value)) return -1;
  // A `user:password` form is a credential by its shape; a bare argument must look like one.
  if ((form === 'next' || form === 'glued') && PROSE_WORD.test(value)) return -1;
  emit(state, type, from, end, 0.9);
  return end;
}

/** Detect secrets in the options that start at `starts` (ascending; each a `-`, see optionMayStart). */
export function detectCliSecrets(state: ScanState, starts: readonly number[]): void {
  if (starts.length === 0) return;
  const text = state.text;
  // The command segment of the current option, found by walking forwards once over the text.
  let walked = 0;
  let segmentStart = 0;
  let segmentTool: { tool: string; sub: string } | undefined | null = null;
  for (const start of starts) {
    for (; walked < start; walked++) {
      if (isSegmentBreak(text.charCodeAt(walked))) {
        segmentStart = walked + 1;
        segmentTool = null;
      }
    }
    const dashes = text.charCodeAt(start + 1) === 45 ? 2 : 1;
    let nameEnd = start + dashes;
    while (nameEnd - start <= MAX_NAME && isOptionChar(text.charCodeAt(nameEnd))) nameEnd++;
    const name = text.slice(start + dashes, nameEnd).toLowerCase();
    // Generic options named for a secret (`--password`, `-storepass`): the next argument.
    if (PASSWORD_OPTIONS.has(name) || (dashes === 2 && TOKEN_OPTIONS.has(name))) {
      const value = argumentAt(text, nameEnd, true) ?? (text.charCodeAt(nameEnd) === 61 ? argumentAt(text, nameEnd + 1, false) : undefined);
      if (value !== undefined) emitValue(state, 'next', PASSWORD_OPTIONS.has(name) ? 'password' : 'api_key', value.start, value.end);
      continue;
    }
    if (segmentTool === null) {
      // The segment ends at the next break (bounded by the text); the tool is its first word.
      let limit = start;
      while (limit < text.length && !isSegmentBreak(text.charCodeAt(limit))) limit++;
      segmentTool = toolOf(text, segmentStart, limit);
    }
    if (segmentTool === undefined) continue;
    const options = TOOL_OPTIONS.get(`${segmentTool.tool} ${segmentTool.sub}`) ?? TOOL_OPTIONS.get(segmentTool.tool);
    if (options === undefined) continue;
    const written = text.slice(start, nameEnd);
    const form = options.get(written);
    if (form !== undefined) {
      if (form === 'glued') continue; // `-p` alone: the tool prompts
      const value = argumentAt(text, nameEnd, true) ?? (text.charCodeAt(nameEnd) === 61 ? argumentAt(text, nameEnd + 1, false) : undefined);
      if (value !== undefined) emitValue(state, form, 'password', value.start, value.end);
      continue;
    }
    // A one-letter option with its value glued (`-pS3cr3t`): the letter's form, the rest of the word.
    if (dashes === 1) {
      const letterForm = options.get(text.slice(start, start + 2));
      if (letterForm === 'glued' || letterForm === 'next') {
        const value = argumentAt(text, start + 2, false);
        if (value !== undefined) emitValue(state, 'next', 'password', value.start, value.end);
      }
    }
  }
}
