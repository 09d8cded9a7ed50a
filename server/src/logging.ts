// Process logger: pino, newline-delimited JSON with VEIL_LOG_FORMAT=json, a compact text line
// otherwise. Request bodies and credentials are never logged; redaction is a second guard.
import type { FastifyBaseLogger } from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions, type Logger } from 'pino';
import { isoTime } from './iso-time.js';

export interface LogOptions {
  readonly level: string;
  readonly format: 'json' | 'text';
  /** Where lines go; stdout by default. */
  readonly stream?: NodeJS.WritableStream;
  /**
   * Lines are held for at most this many milliseconds and written together (LineBatch). Default:
   * LOG_BATCH_MS on stdout; 0 (each line handed on at once) on a given stream, which tests read.
   */
  readonly batchMs?: number;
}

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.body',
  'body',
  'input',
  'output',
  'value',
  'values',
  'session_state',
  'secret',
  '*.secret',
  '*.key',
];

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex
const UNSAFE_ALL = /[\u0000-\u001f\u007f\u2028\u2029]/g;

/** Escape control characters so caller-supplied strings cannot forge log lines. */
function clean(text: string): string {
  // Most values have none: test once rather than run a replacing scan on every one.
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A field value as text: strings as they are, numbers and flags as written, the rest as JSON. */
function valueText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return clean(value);
    case 'number':
    case 'boolean':
      return String(value);
    default:
      return value === null ? 'null' : clean(JSON.stringify(value));
  }
}

/** pino's own fields, printed in the line's head (time, level, msg) or not at all. */
const HEAD_FIELDS = new Set(['time', 'level', 'msg', 'pid', 'hostname']);

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** A text line: time, level, message, then key=value pairs for `fields` (pino's own fields skipped). */
function formatText(time: unknown, level: unknown, msg: unknown, fields: Record<string, unknown>, prefix = ''): string {
  const when = typeof time === 'number' ? isoTime(time) : '';
  let pairs = prefix;
  for (const key in fields) {
    const value = fields[key];
    // Undefined fields are absent, as in pino's JSON (the audit event keeps one fixed shape).
    if (value !== undefined && !HEAD_FIELDS.has(key)) pairs += ` ${key}=${valueText(value)}`;
  }
  return `${when} ${LEVEL_NAMES[level as number] ?? String(level)} ${clean(typeof msg === 'string' ? msg : '')}${pairs}\n`;
}

/** One pino record (a JSON line) as a text line: time, level, message, then key=value pairs. */
export function textLine(json: string): string {
  try {
    const record = JSON.parse(json) as Record<string, unknown>;
    return formatText(record.time, record.level, record.msg, record);
  } catch {
    return `${clean(json)}\n`;
  }
}

/**
 * The text format as a pino destination: pino hands it one record per write (a JSON line, which
 * never contains a raw newline), and the text line goes on to `out`: on stdout the log's line
 * batch (createLogger), like the JSON format's. (A synchronous write per line to a pipe cost a
 * quarter of the server's CPU under load; one per batch costs nothing measurable.)
 */
function textDestination(out: { write(text: string): unknown }): { write(line: string): void } {
  return {
    write(line: string): void {
      const end = line.endsWith('\n') ? line.length - 1 : line.length;
      if (end > 0) out.write(textLine(line.slice(0, end)));
    },
  };
}

/**
 * Writes one info-level record of a named child logger (`name`) straight to the logger's
 * destination, formatted exactly as pino and the text format would format it, without pino's
 * generic path (serialize, redact, and for text: parse back and reformat). For records whose
 * fields are value-free by construction and flat (the audit event on the `log` sink, one per
 * request). Silent when the logger's level is above info.
 */
export type RecordWriter = (name: string, fields: Readonly<Record<string, unknown>>, msg: string) => void;

/**
 * A RecordWriter bound to one name, message and leading fields (`lead`, written before `fields`
 * as if they were its first keys): everything constant in the line is formatted once, when it is
 * bound, and each record formats only its own fields. The audit event's `audit: true` is such a
 * lead, so the event is written as it is rather than copied into a new object first.
 */
export type BoundRecordWriter = (fields: object) => void;

interface RecordWriters {
  readonly write: RecordWriter;
  bind(name: string, msg: string, lead: Readonly<Record<string, string | number | boolean>>): BoundRecordWriter;
}

/** Where createLogger leaves its writers: pino's children (Fastify's app.log) inherit them. */
const RECORD_WRITER = Symbol('veil.recordWriter');

function writersOf(logger: object): RecordWriters | undefined {
  return (logger as { [RECORD_WRITER]?: RecordWriters })[RECORD_WRITER];
}

/** The direct record writer of a logger made by createLogger (or a child of one); undefined otherwise. */
export function recordWriterOf(logger: object): RecordWriter | undefined {
  return writersOf(logger)?.write;
}

/** A direct writer bound to `name`, `msg` and `lead` (BoundRecordWriter); undefined on loggers createLogger did not make. */
export function boundRecordWriterOf(logger: object, name: string, msg: string, lead: Readonly<Record<string, string | number | boolean>> = {}): BoundRecordWriter | undefined {
  return writersOf(logger)?.bind(name, msg, lead);
}

const INFO = 30;

/** `fields` as the inside of a JSON object (no braces), followed by a comma when not empty. */
function jsonMembers(fields: object): string {
  const body = JSON.stringify(fields);
  return body.length > 2 ? `${body.slice(1, -1)},` : '';
}

function recordWriters(logger: Logger, format: LogOptions['format'], out: { write(text: string): unknown }, service: string): RecordWriters {
  const bind = (name: string, msg: string, lead: Readonly<Record<string, string | number | boolean>>): BoundRecordWriter => {
    if (format === 'text') {
      // formatText's prefix: pairs that come before the record's own, escaped as it escapes them.
      let prefix = ` service=${service} name=${clean(name)}`;
      for (const key in lead) if (!HEAD_FIELDS.has(key)) prefix += ` ${key}=${valueText(lead[key])}`;
      return (fields) => {
        if (!logger.isLevelEnabled('info')) return;
        out.write(formatText(Date.now(), INFO, msg, fields as Readonly<Record<string, unknown>>, prefix));
      };
    }
    const head = `,"service":${JSON.stringify(service)},"name":${JSON.stringify(name)},${jsonMembers(lead)}`;
    const tail = `"msg":${JSON.stringify(msg)}}\n`;
    return (fields) => {
      if (!logger.isLevelEnabled('info')) return;
      out.write(`{"level":${INFO},"time":${Date.now()}${head}${jsonMembers(fields)}${tail}`);
    };
  };
  return {
    // Not bound: name and message vary by call (formatted per record).
    write: (name, fields, msg) => bind(name, msg, {})(fields),
    bind,
  };
}

const SERVICE = 'veil-server';

/** How long a log line waits on stdout for others to share its write (LineBatch). */
export const LOG_BATCH_MS = 20;
/**
 * A batch this long is written at once, without waiting for the timer. Kept small: on a pipe
 * (stdout read by a log shipper or a parent process), batches of 30-60 KB cut the server's
 * throughput under load by a third and tripled its p99 in session 10's runs (main thread waiting
 * on the run queue), where 8 KB batches served as many requests as no batching (BENCHMARKS.md
 * "Session 10 (wave9/hot)").
 */
const LOG_BATCH_CHARS = 8 * 1024;

/** What LineBatch writes to: pino's destination (flushSync on exit), or any writable. */
interface LineOut {
  write(text: string): unknown;
  flushSync?(): void;
}

/**
 * Log lines (and the audit lines of the `log` sink) coalesced into one write per batch: a line
 * is held until `delayMs` after the first line of its batch or until the batch reaches
 * `maxChars`, then the batch goes to `out` in one string, in order and byte for byte. Unbatched,
 * pino's asynchronous destination writes on libuv's thread pool: each write costs a hand-off to a
 * pool thread and an eventfd wake-up of the loop (futex calls and context switches, BENCHMARKS.md
 * "Session 10 (wave9/hot)"), once per line when requests arrive one at a time; batched, stdout is
 * written synchronously, once per batch (createLogger). One timer, built here and re-armed per
 * batch (never per line); unref'd, so it keeps no process alive. On exit the held lines are
 * written at once, in order after every earlier batch.
 */
export class LineBatch {
  #pending = '';
  readonly #out: LineOut;
  readonly #maxChars: number;
  readonly #timer: NodeJS.Timeout;

  constructor(out: LineOut, delayMs: number, maxChars = LOG_BATCH_CHARS) {
    this.#out = out;
    this.#maxChars = maxChars;
    this.#timer = setTimeout(() => this.flush(), delayMs);
    this.#timer.unref();
  }

  write(text: string): void {
    // The first line of a batch arms the timer; later ones ride along.
    if (this.#pending.length === 0) this.#timer.refresh();
    this.#pending += text;
    if (this.#pending.length >= this.#maxChars) this.flush();
  }

  /** Hand what is held to `out` now. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const text = this.#pending;
    this.#pending = '';
    this.#out.write(text);
  }

  /** Write what is held and have `out` write it synchronously (process exit: no loop turn is left). */
  flushSync(): void {
    this.flush();
    try {
      this.#out.flushSync?.();
    } catch {
      // A destination that cannot flush now (not open yet, destroyed) loses what it held, as pino's own exit flush would.
    }
  }
}

export function createLogger(options: LogOptions): Logger {
  const base = { level: options.level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: SERVICE } };
  const batchMs = options.batchMs ?? (options.stream === undefined ? LOG_BATCH_MS : 0);
  // Batched, stdout is written synchronously: one write per batch costs nothing measurable, and
  // a batch can never overtake one still in flight on the thread pool (the exit flush did: lines
  // 137-199 printed before 0-136 on a loaded machine). Unbatched, a synchronous write per line
  // would cost a quarter of the CPU under load, so that destination stays asynchronous.
  const destination = options.stream ?? pino.destination({ dest: 1, sync: batchMs > 0 });
  let out: { write(text: string): unknown } = destination;
  if (batchMs > 0) {
    const batch = new LineBatch(destination, batchMs);
    process.once('exit', () => batch.flushSync());
    out = batch;
  }
  const logger = pino(base, options.format === 'json' ? out : textDestination(out));
  (logger as Logger & { [RECORD_WRITER]?: RecordWriters })[RECORD_WRITER] = recordWriters(logger, options.format, out, SERVICE);
  return logger;
}

/**
 * Fastify's `childLoggerFactory`: a request's logger that makes its pino child (the request id
 * bound into every line) only when the request first logs. Fastify made one per request, ~2 % of
 * a 1 KB transform's CPU (pino's `child` serializes the bindings), and a request that succeeds
 * logs nothing: completions are debug records (routes/common.ts logCompleted), the audit line goes
 * through the root logger. A route with its own level or serializers gets its child at once.
 * Every line it writes is the child's, so the output is the same.
 */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined || options.msgPrefix !== undefined) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings);
}

/** lazyChildLogger's logger: forwards every call to the child, made on the first. */
class RequestLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #real(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings));
  }

  #call(method: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent', args: unknown[]): void {
    const real = this.#real();
    Reflect.apply(real[method], real, args);
  }

  /** The child's level; before it exists, the parent's (which the child would take). */
  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#real().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#call('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#call('error', args);
  }

  warn(...args: unknown[]): void {
    this.#call('warn', args);
  }

  info(...args: unknown[]): void {
    this.#call('info', args);
  }

  debug(...args: unknown[]): void {
    this.#call('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#call('trace', args);
  }

  silent(...args: unknown[]): void {
    this.#call('silent', args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    return (this.#real() as FastifyBaseLogger & { isLevelEnabled(level: string): boolean }).isLevelEnabled(level);
  }
}
