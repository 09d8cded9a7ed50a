// Process logger: pino, newline-delimited JSON with VEIL_LOG_FORMAT=json, a compact text line
// otherwise. Request bodies and credentials are never logged; redaction is a second guard.
import { Writable } from 'node:stream';
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

/** Escape control characters so caller-supplied strings cannot forge log lines. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

function textStream(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        try {
          const record = JSON.parse(line) as Record<string, unknown>;
          const { time, level, msg, pid: _pid, hostname: _hostname, ...rest } = record;
          const when = typeof time === 'number' ? new Date(time).toISOString() : '';
          const fields = Object.entries(rest)
            .map(([key, value]) => `${key}=${clean(typeof value === 'string' ? value : JSON.stringify(value))}`)
            .join(' ');
          out.write(`${when} ${LEVEL_NAMES[level as number] ?? String(level)} ${clean(typeof msg === 'string' ? msg : '')}${fields ? ` ${fields}` : ''}\n`);
        } catch {
          out.write(`${clean(line)}\n`);
        }
      }
      callback();
    },
  });
}

export function createLogger(options: LogOptions): Logger {
  const base = { level: options.level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'veil-server' } };
  const out = options.stream ?? process.stdout;
  if (options.format === 'json') return pino(base, out === process.stdout ? pino.destination({ dest: 1, sync: false }) : out);
  return pino(base, textStream(out));
}
