// Where audit events go: a small interface with two implementations. `log` (the default)
// writes each event to the process log under the `veil.audit` logger and never fails the
// request (fail-open, ephemeral); `file` (file-sink.ts) appends to an HMAC-chained file and
// resolves only after the record is fsynced.
import { boundRecordWriterOf } from '../logging.js';
import type { AuditEvent } from './event.js';

/** What the log sink needs of a logger (pino's, or Fastify's view of it). */
export interface AuditLogger {
  readonly level: string;
  child(bindings: Record<string, unknown>, options?: { level?: string }): { info(object: object, message: string): void };
}

export interface AuditSink {
  readonly backend: 'log' | 'file' | (string & {});
  /**
   * True when record() has done all its work by the time it returns and never rejects (the log
   * sink): the plugin then does not wait for its promise.
   */
  readonly synchronous?: boolean;
  /** Resolves once the event is recorded (durably, for the file sink); rejects when it cannot be. */
  record(event: AuditEvent): Promise<void>;
  /** False while the sink is known to be unable to record (a failed write, a removed file). */
  healthy(): boolean;
  /** Try to become healthy again; resolves to the health afterwards. Attempts are rate-limited. */
  probe(): Promise<boolean>;
  /** Record what is queued, then stop; later records are rejected. */
  close(): Promise<void>;
}

/** The logger name of audit events (decisions.md section 1). */
export const AUDIT_LOGGER_NAME = 'veil.audit';

/**
 * Audit events on the process log. Logging problems never reach the request (fail-open). With
 * the default `log` sink the event is the request's one line at info (routes log their own
 * completion events at debug): on a logger from createLogger it is written directly in the
 * log's format (logging.ts BoundRecordWriter: the event is flat and value-free by construction, so
 * pino's generic serialization and redaction have nothing to do), otherwise through a pino child.
 */
export class LogAuditSink implements AuditSink {
  readonly backend = 'log';
  readonly synchronous = true;
  readonly #write: (event: AuditEvent) => void;

  constructor(logger: AuditLogger) {
    // The line's constant part (service, logger name, `audit=true`, message) formatted once here;
    // the event is written as it is, not copied into a new object with `audit` in front.
    const direct = boundRecordWriterOf(logger, AUDIT_LOGGER_NAME, 'audit', { audit: true });
    if (direct !== undefined) {
      this.#write = direct;
      return;
    }
    // Info level whatever the process level, so VEIL_LOG_LEVEL=warn does not silence the audit
    // trail; a disabled (silent) logger stays silent.
    const child = logger.child({ name: AUDIT_LOGGER_NAME }, logger.level === 'silent' ? {} : { level: 'info' });
    this.#write = (event) => child.info({ audit: true, ...event }, 'audit');
  }

  record(event: AuditEvent): Promise<void> {
    try {
      this.#write(event);
    } catch {
      // Fail-open by contract: the log sink is best effort.
    }
    return Promise.resolve();
  }

  healthy(): boolean {
    return true;
  }

  probe(): Promise<boolean> {
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
