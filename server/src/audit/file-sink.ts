// The durable audit sink: an append-only, HMAC-chained JSON-lines file (format in chain.ts).
//
// - Durability: `record()` resolves only after the record's bytes are written and fdatasync'd,
//   so an acknowledged request's event survives a crash (threats.md 15).
// - Group commit: records that arrive while a write+fsync is in flight queue up and share the
//   next one, so concurrent requests pay for one fsync between them.
// - Restart: the chain resumes from the last record in the file, whose MAC must verify with the
//   configured key. Bytes after the last newline (a torn write from a power loss) are truncated
//   and an `audit_started` record notes `recovered_bytes`. A checkpoint ahead of the file
//   (records lost from the end) or a last record that does not verify refuses to start.
// - Outage: a failed write or fsync, or the file being removed or replaced under the process,
//   makes the sink unhealthy; the queued records are rejected (the plugin answers 503 in strict
//   mode). `probe()` (rate-limited) truncates any partial bytes back to the last good record,
//   reopens the same file and writes an `audit_recovered` record with the number of lost events.
// - One writer per file: two processes appending to one path would fork the chain.
import { constants, promises as fsp } from 'node:fs';
import { dirname } from 'node:path';
import { isoTime } from '../iso-time.js';
import { CHECKPOINT_SUFFIX, GENESIS_PREV, keyFingerprint, openCheckpoint, openRecord, sealCheckpoint, sealRecord } from './chain.js';
import type { AuditEvent } from './event.js';
import type { AuditSink } from './sink.js';

/** Thrown (and used to reject records) when the sink cannot record. Carries no value. */
export class AuditUnavailableError extends Error {
  override readonly name = 'AuditUnavailableError';
}

/** Thrown by open() when the existing file cannot be continued safely. */
export class AuditOpenError extends Error {
  override readonly name = 'AuditOpenError';
}

/** Identity of a file (device and inode), to notice it being removed or replaced. */
export interface FileIdentity {
  readonly dev: string;
  readonly ino: string;
  readonly size: number;
}

export interface AppendHandle {
  /** Write all of `data` at the end of the file. */
  write(data: Buffer): Promise<void>;
  /** fdatasync: the data and the size are durable when this resolves. */
  sync(): Promise<void>;
  identity(): Promise<FileIdentity>;
  close(): Promise<void>;
}

/** The file operations the sink uses; tests wrap them to inject faults. */
export interface AuditFileSystem {
  stat(path: string): Promise<FileIdentity | undefined>;
  openAppend(path: string): Promise<AppendHandle>;
  readRange(path: string, start: number, length: number): Promise<Buffer>;
  readText(path: string): Promise<string | undefined>;
  truncate(path: string, length: number): Promise<void>;
  /** Write a small file atomically: temp file, fsync, rename, fsync the directory. */
  replaceAtomically(path: string, text: string): Promise<void>;
  syncDirectory(path: string): Promise<void>;
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

export const nodeAuditFs: AuditFileSystem = {
  async stat(path) {
    try {
      const stat = await fsp.stat(path, { bigint: true });
      return { dev: stat.dev.toString(), ino: stat.ino.toString(), size: Number(stat.size) };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  },
  async openAppend(path) {
    const handle = await fsp.open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
    return {
      async write(data) {
        let offset = 0;
        while (offset < data.length) {
          const { bytesWritten } = await handle.write(data, offset, data.length - offset);
          offset += bytesWritten;
        }
      },
      sync: () => handle.datasync(),
      async identity() {
        const stat = await handle.stat({ bigint: true });
        return { dev: stat.dev.toString(), ino: stat.ino.toString(), size: Number(stat.size) };
      },
      close: () => handle.close(),
    };
  },
  async readRange(path, start, length) {
    const handle = await fsp.open(path, 'r');
    try {
      const buffer = Buffer.alloc(length);
      let read = 0;
      while (read < length) {
        const { bytesRead } = await handle.read(buffer, read, length - read, start + read);
        if (bytesRead === 0) break;
        read += bytesRead;
      }
      return buffer.subarray(0, read);
    } finally {
      await handle.close();
    }
  },
  async readText(path) {
    try {
      return await fsp.readFile(path, 'utf8');
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  },
  async truncate(path, length) {
    const handle = await fsp.open(path, 'r+');
    try {
      await handle.truncate(length);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  async replaceAtomically(path, text) {
    const temporary = `${path}.tmp`;
    const handle = await fsp.open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsp.rename(temporary, path);
    await nodeAuditFs.syncDirectory(dirname(path));
  },
  async syncDirectory(path) {
    const handle = await fsp.open(path, 'r');
    try {
      await handle.sync();
    } catch (error) {
      // Some file systems cannot fsync a directory; the rename is then as durable as they allow.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EBADF') throw error;
    } finally {
      await handle.close();
    }
  },
};

export interface FileSinkOptions {
  readonly path: string;
  /** The 32-byte HMAC key (audit.hmac_key). */
  readonly key: Buffer;
  readonly now?: () => number;
  readonly fs?: AuditFileSystem;
  /** Value-free messages about sink failures, for the process log. */
  readonly onError?: (message: string) => void;
  /** Least time between two recovery attempts (default 1000 ms). */
  readonly probeIntervalMs?: number;
  /**
   * Least time between two checkpoint writes (default 1000 ms; 0: after every write). Each one
   * costs a temp file, two fsyncs and a rename, about as much disk time as ten record appends;
   * the records themselves are fsynced before they are acknowledged either way.
   */
  readonly checkpointIntervalMs?: number;
}

/** How far back open() looks for the last record (records are a few KiB at most). */
const TAIL_WINDOW = 256 * 1024;
/** Most records written by one write+fsync. */
const MAX_BATCH = 1024;

interface ChainState {
  seq: number;
  mac: string;
  tsMs: number;
  /** Bytes of the file up to and including the last durable record. */
  size: number;
}

interface Pending {
  readonly event: AuditEvent;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : 'unknown error';
}

/** Read the existing file's last complete record; how many bytes follow it (a torn write). */
async function readTail(fs: AuditFileSystem, path: string, key: Buffer, size: number): Promise<{ state: ChainState; tornBytes: number }> {
  const start = Math.max(0, size - TAIL_WINDOW);
  const window = await fs.readRange(path, start, size - start);
  const lastNewline = window.lastIndexOf(0x0a);
  if (lastNewline === -1) {
    if (start > 0) throw new AuditOpenError(`${path}: no complete record in its last ${TAIL_WINDOW} bytes; run 'veil audit verify'`);
    // Not one complete record: the first write was torn.
    return { state: { seq: 0, mac: GENESIS_PREV, tsMs: 0, size: 0 }, tornBytes: size };
  }
  const previousNewline = window.lastIndexOf(0x0a, lastNewline - 1);
  if (previousNewline === -1 && start > 0) throw new AuditOpenError(`${path}: last record longer than ${TAIL_WINDOW} bytes; run 'veil audit verify'`);
  const line = window.subarray(previousNewline + 1, lastNewline).toString('utf8');
  const opened = openRecord(key, line);
  if (!opened.ok) {
    throw new AuditOpenError(
      `${path}: its last record does not verify with the configured audit.hmac_key (${opened.reason}); ` +
        "run 'veil audit verify', and move the file away to start a new chain",
    );
  }
  const goodSize = start + lastNewline + 1;
  return { state: { seq: opened.record.seq, mac: opened.mac, tsMs: Date.parse(opened.record.ts), size: goodSize }, tornBytes: size - goodSize };
}

export class FileAuditSink implements AuditSink {
  readonly backend = 'file';
  readonly #path: string;
  readonly #checkpointPath: string;
  readonly #key: Buffer;
  readonly #fs: AuditFileSystem;
  readonly #now: () => number;
  readonly #onError: (message: string) => void;
  readonly #probeIntervalMs: number;
  #handle: AppendHandle | undefined;
  #identity: FileIdentity;
  #state: ChainState;
  #healthy = true;
  #closed = false;
  #queue: Pending[] = [];
  #drainScheduled = false;
  #lock: Promise<unknown> = Promise.resolve();
  #lost = 0;
  #lastAttemptMs = 0;
  #lastFailure = '';
  #checkpointDirty = false;
  #checkpointRunning: Promise<void> | undefined;
  readonly #checkpointIntervalMs: number;
  #lastCheckpointMs = Number.NEGATIVE_INFINITY;
  #checkpointTimer: NodeJS.Timeout | undefined;

  private constructor(options: FileSinkOptions, fs: AuditFileSystem, handle: AppendHandle, identity: FileIdentity, state: ChainState) {
    this.#path = options.path;
    this.#checkpointPath = `${options.path}${CHECKPOINT_SUFFIX}`;
    this.#key = options.key;
    this.#fs = fs;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => undefined);
    this.#probeIntervalMs = options.probeIntervalMs ?? 1000;
    this.#checkpointIntervalMs = options.checkpointIntervalMs ?? 1000;
    this.#handle = handle;
    this.#identity = identity;
    this.#state = state;
  }

  /**
   * Open (or create) the audit file, resume its chain and record an `audit_started` event.
   * Throws AuditOpenError when the file cannot be continued safely, and the file system's error
   * when it cannot be written at all: a server must not start without its audit trail.
   */
  static async open(options: FileSinkOptions): Promise<FileAuditSink> {
    if (options.key.length !== 32) throw new AuditOpenError('audit.hmac_key: must be 32 bytes');
    const fs = options.fs ?? nodeAuditFs;
    const path = options.path;
    const existing = await fs.stat(path);
    let state: ChainState = { seq: 0, mac: GENESIS_PREV, tsMs: 0, size: 0 };
    let tornBytes = 0;
    if (existing !== undefined && existing.size > 0) ({ state, tornBytes } = await readTail(fs, path, options.key, existing.size));

    const checkpointText = await fs.readText(`${path}${CHECKPOINT_SUFFIX}`);
    if (checkpointText !== undefined) {
      const opened = openCheckpoint(options.key, checkpointText);
      if (!opened.ok) throw new AuditOpenError(`${path}${CHECKPOINT_SUFFIX}: ${opened.reason}; run 'veil audit verify'`);
      const checkpoint = opened.checkpoint;
      if (checkpoint.seq > state.seq) {
        throw new AuditOpenError(
          `${path}: ends at seq ${state.seq} but its checkpoint records seq ${checkpoint.seq}: records were removed from the end; run 'veil audit verify'`,
        );
      }
      if (checkpoint.seq === state.seq && checkpoint.mac !== state.mac) {
        throw new AuditOpenError(`${path}: record ${state.seq} does not match its checkpoint: the file was rewritten; run 'veil audit verify'`);
      }
    }
    if (tornBytes > 0) {
      // A torn last write (power loss mid-append): it was never acknowledged, so drop its bytes
      // and say so in the chain.
      await fs.truncate(path, state.size);
      options.onError?.(`audit: removed a torn last record (${tornBytes} bytes) from ${path}`);
    }
    const handle = await fs.openAppend(path);
    if (existing === undefined) await fs.syncDirectory(dirname(path));
    const identity = await handle.identity();
    const sink = new FileAuditSink(options, fs, handle, identity, state);
    const started = sink.record({
      event_type: 'audit_started',
      timestamp: new Date(sink.#now()).toISOString(),
      tenant_id: null,
      resumed: state.seq > 0,
      key_fingerprint: keyFingerprint(options.key),
      ...(tornBytes > 0 ? { recovered_bytes: tornBytes } : {}),
    });
    try {
      await started;
    } catch (error) {
      await sink.close().catch(() => undefined);
      throw new AuditOpenError(`${path}: cannot write the audit file (${sink.#lastFailure || errorCode(error)})`);
    }
    return sink;
  }

  get path(): string {
    return this.#path;
  }

  /** The last durable position (for tests and diagnostics). */
  position(): { seq: number; mac: string } {
    return { seq: this.#state.seq, mac: this.#state.mac };
  }

  healthy(): boolean {
    return this.#healthy && !this.#closed;
  }

  record(event: AuditEvent): Promise<void> {
    if (this.#closed) return Promise.reject(new AuditUnavailableError('audit sink is closed'));
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ event, resolve, reject });
      if (!this.#drainScheduled) {
        this.#drainScheduled = true;
        void this.#exclusive(() => {
          this.#drainScheduled = false;
          return this.#drain();
        });
      }
    });
  }

  probe(): Promise<boolean> {
    if (this.healthy()) return Promise.resolve(true);
    if (this.#closed) return Promise.resolve(false);
    return this.#exclusive(() => this.#recover());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#exclusive(() => this.#drain());
    this.#closed = true;
    clearTimeout(this.#checkpointTimer);
    this.#checkpointTimer = undefined;
    while (this.#checkpointRunning !== undefined) await this.#checkpointRunning;
    if (this.#healthy) {
      this.#checkpointDirty = true;
      await this.#runCheckpoints();
    }
    const handle = this.#handle;
    this.#handle = undefined;
    await handle?.close().catch(() => undefined);
  }

  /** Run `task` after every earlier task: writes, recoveries and closing never interleave. */
  #exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#lock.then(task);
    this.#lock = result.catch(() => undefined);
    return result;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_BATCH);
      if (!this.#healthy && !(await this.#recover())) {
        this.#lost += batch.length;
        for (const pending of batch) pending.reject(new AuditUnavailableError('audit sink unavailable'));
        continue;
      }
      try {
        await this.#append(batch.map((pending) => pending.event));
        for (const pending of batch) pending.resolve();
      } catch (error) {
        this.#lost += batch.length;
        this.#fail('write', error);
        for (const pending of batch) pending.reject(new AuditUnavailableError('audit sink unavailable'));
      }
    }
  }

  /** Chain, write and fsync `events` as one append; the chain state moves only on success. */
  async #append(events: readonly AuditEvent[]): Promise<void> {
    const handle = this.#handle;
    if (handle === undefined) throw new AuditUnavailableError('audit file is not open');
    // The path must still name the file being appended to (not removed, not replaced). The check
    // runs beside the write and the fsync rather than before them: a batch then costs one round
    // trip less on the file system's thread pool, and the records are acknowledged only when
    // both are done, so a file found replaced still fails the whole batch.
    let { seq, mac, tsMs } = this.#state;
    const lines: string[] = [];
    for (const event of events) {
      // A wall clock that steps back must not make the chain's time go backwards.
      tsMs = Math.max(tsMs, this.#now());
      seq += 1;
      const sealed = sealRecord(this.#key, { seq, ts: isoTime(tsMs), prev: mac, event });
      lines.push(sealed.line);
      mac = sealed.mac;
    }
    const bytes = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    const identity = this.#fs.stat(this.#path);
    // Both settle before this returns: a failed check must not leave a write in flight behind
    // the recovery that follows (which truncates the file).
    const [checked, written] = await Promise.allSettled([identity, handle.write(bytes).then(() => handle.sync())]);
    if (written.status === 'rejected') throw written.reason;
    if (checked.status === 'rejected') throw checked.reason;
    const current = checked.value;
    if (current === undefined || current.dev !== this.#identity.dev || current.ino !== this.#identity.ino) {
      throw new AuditUnavailableError('audit file was removed or replaced');
    }
    this.#state = { seq, mac, tsMs, size: this.#state.size + bytes.length };
    this.#checkpointDirty = true;
    this.#scheduleCheckpoint();
  }

  /**
   * Write the checkpoint now, or when checkpointIntervalMs has passed since the last one: under
   * load one checkpoint covers every record made durable in between. close() writes the last.
   */
  #scheduleCheckpoint(): void {
    if (this.#closed) return;
    const wait = this.#lastCheckpointMs + this.#checkpointIntervalMs - this.#now();
    if (wait <= 0) {
      clearTimeout(this.#checkpointTimer);
      this.#checkpointTimer = undefined;
      this.#lastCheckpointMs = this.#now();
      void this.#runCheckpoints();
      return;
    }
    if (this.#checkpointTimer !== undefined) return;
    this.#checkpointTimer = setTimeout(() => {
      this.#checkpointTimer = undefined;
      if (this.#closed) return;
      this.#lastCheckpointMs = this.#now();
      void this.#runCheckpoints();
    }, wait);
    this.#checkpointTimer.unref();
  }

  #fail(what: string, error: unknown): void {
    this.#lastFailure = errorCode(error);
    if (this.#healthy) this.#onError(`audit: ${what} to ${this.#path} failed (${errorCode(error)}); the audit sink is unhealthy`);
    this.#healthy = false;
    this.#lastAttemptMs = this.#now();
  }

  /**
   * Get back to a writable file at the last durable record: drop any partial bytes a failed
   * append left, reopen, and record how many events were lost. Only the same file is reopened:
   * a removed or replaced file stays an outage until a restart starts a new chain deliberately.
   */
  async #recover(): Promise<boolean> {
    if (this.#healthy) return true;
    if (this.#closed) return false;
    const now = this.#now();
    if (now - this.#lastAttemptMs < this.#probeIntervalMs) return false;
    this.#lastAttemptMs = now;
    try {
      await this.#handle?.close().catch(() => undefined);
      this.#handle = undefined;
      const current = await this.#fs.stat(this.#path);
      if (current === undefined || current.dev !== this.#identity.dev || current.ino !== this.#identity.ino) {
        throw new AuditUnavailableError('audit file was removed or replaced; restart to start a new chain');
      }
      if (current.size < this.#state.size) throw new AuditUnavailableError('audit file shrank under the process');
      const partial = current.size - this.#state.size;
      if (partial > 0) await this.#fs.truncate(this.#path, this.#state.size);
      this.#handle = await this.#fs.openAppend(this.#path);
      const lost = this.#lost;
      await this.#append([
        {
          event_type: 'audit_recovered',
          timestamp: new Date(now).toISOString(),
          tenant_id: null,
          lost_events: lost,
          ...(partial > 0 ? { recovered_bytes: partial } : {}),
        },
      ]);
      this.#lost -= lost;
      this.#healthy = true;
      this.#onError(`audit: ${this.#path} writable again; ${lost} event(s) were not recorded during the outage`);
      return true;
    } catch (error) {
      this.#onError(`audit: recovery of ${this.#path} failed (${errorCode(error)})`);
      return false;
    }
  }

  /** Bring the checkpoint to the last durable record; one write at a time, coalesced. */
  #runCheckpoints(): Promise<void> {
    if (this.#checkpointRunning !== undefined) return this.#checkpointRunning;
    const run = async (): Promise<void> => {
      if (!this.#checkpointDirty) return;
      this.#checkpointDirty = false;
      const state = this.#state;
      try {
        await this.#fs.replaceAtomically(this.#checkpointPath, sealCheckpoint(this.#key, { seq: state.seq, mac: state.mac, ts: new Date(state.tsMs).toISOString() }));
      } catch (error) {
        // The records themselves are durable; a stale checkpoint only narrows what truncation
        // detection covers. Said loudly, retried with the next record.
        this.#onError(`audit: checkpoint ${this.#checkpointPath} not updated (${errorCode(error)})`);
      }
    };
    this.#checkpointRunning = run().finally(() => {
      this.#checkpointRunning = undefined;
      // A record made durable while this one was written gets the next checkpoint.
      if (this.#checkpointDirty && !this.#closed) this.#scheduleCheckpoint();
    });
    return this.#checkpointRunning;
  }
}
