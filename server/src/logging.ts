// Process logger: pino, newline-delimited JSON with VEIL_LOG_FORMAT=json, a compact text line
// otherwise. Request bodies and credentials are never logged; redaction is a second guard.
import pino, { type Logger } from 'pino';

export interface LogOptions {
  readonly level: string;
  readonly format: 'json' | 'text';
  /** Where lines go; stdout by default. */
  readonly stream?: NodeJS.WritableStream;
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

/** One pino record (a JSON line) as a text line: time, level, message, then key=value pairs. */
export function textLine(json: string): string {
  try {
    const record = JSON.parse(json) as Record<string, unknown>;
    const { time, level, msg } = record;
    const when = typeof time === 'number' ? new Date(time).toISOString() : '';
    let fields = '';
    for (const key in record) {
      if (!HEAD_FIELDS.has(key)) fields += ` ${key}=${valueText(record[key])}`;
    }
    return `${when} ${LEVEL_NAMES[level as number] ?? String(level)} ${clean(typeof msg === 'string' ? msg : '')}${fields}\n`;
  } catch {
    return `${clean(json)}\n`;
  }
}

/**
 * The text format as a pino destination: pino hands it one record per write (a JSON line, which
 * never contains a raw newline), and the text line goes on to `out`. On stdout `out` is pino's
 * asynchronous destination, like the JSON format's: lines that arrive while a write is in flight
 * go out together in the next one, and pino flushes it on exit. (A synchronous write per line
 * to a pipe cost a quarter of the server's CPU under load.)
 */
function textDestination(out: { write(text: string): unknown }): { write(line: string): void } {
  return {
    write(line: string): void {
      const end = line.endsWith('\n') ? line.length - 1 : line.length;
      if (end > 0) out.write(textLine(line.slice(0, end)));
    },
  };
}

/** Bytes of log lines gathered before a write to stdout, and the longest a line waits there. */
export const LOG_BUFFER_BYTES = 8192;
export const LOG_FLUSH_MS = 50;

/**
 * stdout (or `dest`) as pino's asynchronous destination, gathering lines into writes of LOG_BUFFER_BYTES:
 * under load every request logs a line or two, and a write costs about 20 µs of CPU whatever
 * its size up to 16 KiB (a thread-pool hand-off and a system call; measured on the 2-core VM),
 * so one write per line or two was several per cent of the server's CPU. A quiet server's
 * lines go out within LOG_FLUSH_MS, a warning or an error at once (createLogger); pino flushes
 * what is left when the process exits (also after an uncaught exception).
 */
export function bufferedDestination(dest: number | string = 1, flushMs = LOG_FLUSH_MS): ReturnType<typeof pino.destination> {
  return pino.destination({ dest, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: flushMs });
}

/** pino's record of a warning, an error or a fatal error (`{"level":40`, 50, 60 first). */
function isUrgent(line: string): boolean {
  const digit = line.charCodeAt(9);
  return digit >= 0x34 && digit <= 0x36 && line.startsWith('{"level":');
}

/** `format` writing into the buffered `dest`, which is flushed at once after a warning or an error. */
function flushingUrgent(format: { write(line: string): unknown }, dest: ReturnType<typeof pino.destination>): { write(line: string): void } {
  return {
    write(line: string): void {
      format.write(line);
      if (isUrgent(line)) dest.flush();
    },
  };
}

/** The process logger; without `options.stream`, its lines go to `dest` (stdout, buffered). */
export function createLogger(options: LogOptions, dest?: ReturnType<typeof pino.destination>): Logger {
  const base = { level: options.level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'veil-server' } };
  if (options.stream !== undefined) return pino(base, options.format === 'json' ? options.stream : textDestination(options.stream));
  dest ??= bufferedDestination();
  return pino(base, flushingUrgent(options.format === 'json' ? dest : textDestination(dest), dest));
}
