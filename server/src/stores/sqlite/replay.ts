// SQLite replay store: highest counter per session id and the sealed-session deny list, durable
// across restarts of a single node (several processes may share the file on one host; not a
// multi-host store). advance is one UPSERT whose WHERE clause is the compare-and-set, so it is
// atomic even between processes.
import { SWEEP_BATCH, type SqliteHandle } from './handle.js';
import type { ReplayStore } from '../types.js';

export class SqliteReplayStore implements ReplayStore {
  private readonly advanceStatement;
  private readonly denyStatement;
  private readonly isDeniedStatement;
  private closed = false;

  constructor(private readonly handle: SqliteHandle) {
    const database = handle.database;
    // Insert, or overwrite when the stored record is expired or holds a lower counter; `changes`
    // is 0 exactly when the WHERE rejects (a replay). While live, the record's expiry only grows:
    // it must outlive the longest-lived blob that carried this session id.
    this.advanceStatement = database.prepare(`
      INSERT INTO replay_counter (session_id, counter, expires_at) VALUES (@id, @counter, @expiresAt)
      ON CONFLICT (session_id) DO UPDATE SET
        counter = excluded.counter,
        expires_at = CASE WHEN replay_counter.expires_at > @now
                          THEN max(replay_counter.expires_at, excluded.expires_at)
                          ELSE excluded.expires_at END
      WHERE replay_counter.expires_at <= @now OR replay_counter.counter < excluded.counter`);
    this.denyStatement = database.prepare(`
      INSERT INTO replay_deny (session_id, expires_at) VALUES (?, ?)
      ON CONFLICT (session_id) DO UPDATE SET expires_at = max(replay_deny.expires_at, excluded.expires_at)`);
    this.isDeniedStatement = database.prepare('SELECT 1 FROM replay_deny WHERE session_id = ? AND expires_at > ?');
    const sweepCounters = database.prepare(
      'DELETE FROM replay_counter WHERE session_id IN (SELECT session_id FROM replay_counter WHERE expires_at <= ? LIMIT ?)',
    );
    const sweepDeny = database.prepare(
      'DELETE FROM replay_deny WHERE session_id IN (SELECT session_id FROM replay_deny WHERE expires_at <= ? LIMIT ?)',
    );
    handle.addSweeper((nowMs) => {
      sweepCounters.run(nowMs, SWEEP_BATCH);
      sweepDeny.run(nowMs, SWEEP_BATCH);
    });
    handle.acquire();
  }

  advance(sessionId: string, counter: number, expiresAtMs: number, nowMs: number): Promise<boolean> {
    return this.handle.run(
      'replay',
      () => Number(this.advanceStatement.run({ id: sessionId, counter, expiresAt: expiresAtMs, now: nowMs }).changes) > 0,
      { write: nowMs },
    );
  }

  deny(sessionId: string, expiresAtMs: number, nowMs: number): Promise<void> {
    if (expiresAtMs <= nowMs) return Promise.resolve();
    return this.handle.run(
      'replay',
      () => {
        this.denyStatement.run(sessionId, expiresAtMs);
      },
      { write: nowMs },
    );
  }

  isDenied(sessionId: string, nowMs: number): Promise<boolean> {
    return this.handle.run('replay', () => this.isDeniedStatement.get(sessionId, nowMs) !== undefined);
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.handle.release();
    }
    return Promise.resolve();
  }
}
