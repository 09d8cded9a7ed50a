// The stream use case: an incremental rehydrate (/v1/rehydrate/stream with an ndjson body) as
// one object. Opening it is the rehydrate use case's open (the incoming session resolved, the
// blob opened, the deny list and revocations applied) plus a check of the channel and the
// session's policy, all before the first frame. Then every delta is checked again (a value
// revoked meanwhile restores as [DELETED] from the next delta, an invalidated session or an
// expired blob ends the stream: services/stream-check.ts), guarded by the stream output guard
// (no raw value split across frames) and restored by one restorer with one rendering context
// for the whole stream. Free of HTTP: the route reads the lines and writes the frames.
import { StreamOutputGuard } from '../domain/guard/index.js';
import type { UnresolvedToken } from '../domain/rehydrate.js';
import { findTokensLenient } from '../domain/repair/index.js';
import { MarkupContext } from '../domain/restore/index.js';
import { StreamRehydrator } from '../domain/stream/index.js';
import type { OutputGuardSummary } from '../services/output-guard.js';
import { createRestorer, outputGuardFor, restoreOpened, withOutputGuard, type RehydrateRequest } from '../services/rehydrate.js';
import type { StateDeps } from '../services/state.js';
import { LiveSessionCheck } from '../services/stream-check.js';
import { recordingBlock, type RehydrateUseCase } from './rehydrate.js';
import type { UseCaseCall } from './transform.js';

export interface StreamDeps {
  readonly rehydrate: RehydrateUseCase;
  readonly state: StateDeps;
}

/** What the stream's last frame reports (counts, never values). */
export interface StreamSummary {
  readonly tokens_resolved: number;
  readonly tokens_unresolved: readonly UnresolvedToken[];
  readonly output_guard?: OutputGuardSummary;
  readonly warnings?: string[];
}

/** One open incremental rehydrate. */
export class RestoreStream {
  readonly #call: UseCaseCall;
  readonly #live: LiveSessionCheck;
  readonly #rehydrator: StreamRehydrator;
  readonly #guard: ReturnType<typeof outputGuardFor>;

  private constructor(call: UseCaseCall, live: LiveSessionCheck, rehydrator: StreamRehydrator, guard: ReturnType<typeof outputGuardFor>) {
    this.#call = call;
    this.#live = live;
    this.#rehydrator = rehydrator;
    this.#guard = guard;
  }

  /** Open, check and prepare; any refusal here comes before the first frame. */
  static async open(deps: StreamDeps, call: UseCaseCall, base: RehydrateRequest): Promise<RestoreStream> {
    const { env, session, revokedIds } = await deps.rehydrate.openHere(call, base);
    // Validates the channel and the session's policy before the first frame.
    restoreOpened(env, session, { ...base, output: '', revokedIds }, undefined, null);
    // Re-checked before every delta; newly revoked ids land in `revokedIds`, which the restorer
    // below reads on every piece.
    const live = new LiveSessionCheck(deps.state, session, base.tenant, revokedIds);
    // The output guard decides what may leave and guards it; pieces are then restored without guarding again.
    const guard = outputGuardFor(env, session, base.caller);
    // One restorer and one rendering context for the whole stream: a URL or tag that opened in
    // an earlier delta still clamps the tokens of later ones.
    const restorer = createRestorer(env, session, { ...base, revokedIds });
    const markup = new MarkupContext();
    // A piece the guard released as it was is restored on the guard's token scan of it (scanOf).
    const streamGuard = guard !== undefined ? new StreamOutputGuard(guard, findTokensLenient) : undefined;
    const rehydrator = new StreamRehydrator((text) => restorer(text, markup, streamGuard?.scanOf(text)), { guard: streamGuard });
    return new RestoreStream(call, live, rehydrator, guard);
  }

  /** The restored text this delta releases (maybe empty: a token or a value may be cut across deltas). */
  push(delta: string): Promise<string> {
    return recordingBlock(this.#call.facts, async () => {
      await this.#live.check(this.#rehydrator.pending + delta);
      return this.#rehydrator.push(delta);
    });
  }

  /** The rest, once the body ended; the output guard's verdict recorded. */
  end(): Promise<string> {
    return recordingBlock(this.#call.facts, async () => {
      await this.#live.check(this.#rehydrator.pending);
      const rest = this.#rehydrator.end();
      if (this.#guard !== undefined) this.#call.facts({ output_guard: this.#guard.triggered });
      return rest;
    });
  }

  summary(): StreamSummary {
    const guarded: { output_guard?: OutputGuardSummary; warnings?: string[] } = {};
    if (this.#guard !== undefined) withOutputGuard(guarded, this.#guard.summary());
    return { tokens_resolved: this.#rehydrator.tokensResolved, tokens_unresolved: this.#rehydrator.tokensUnresolved, ...guarded };
  }
}
