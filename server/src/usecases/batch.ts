// The batch use case (interface.md 4.7): each item runs the transform use case's own sequence
// (usecases/transform.ts runText / runStructured), one after another with the event loop free
// between items; in a batch large as a whole every item runs on a worker. A failing item carries
// its error and the others still run. Shared mode carries one session across the items: each
// item continues the previous successful item's blob, so the session counter advances once per
// successful item; only the last successful item gets the handle, and only that final
// continuation is recorded in the replay store (the intermediate blobs never leave the server).
// Independent mode gives every item its own handle.
import { VeilError } from '@veil/common';
import type { RequestContext } from '../domain/types.js';
import { outgoingHandle, recordContinuation, type StateDeps } from '../services/state.js';
import type { SessionMeta } from '../services/transform.js';
import type { Executor, StructuredRun, TextRun } from './executor.js';
import { runSession, type SessionHandle, type TransformUseCase, type UseCaseCall } from './transform.js';

export interface BatchDeps {
  readonly transform: TransformUseCase;
  readonly executor: Executor;
  readonly state: StateDeps;
}

/** One item as the request sent it (interface.md 4.7: exactly one of text, input_json, input_messages). */
export interface BatchItem {
  readonly text?: string | undefined;
  readonly input_json?: unknown;
  readonly input_messages?: unknown;
  readonly input_type?: 'text' | 'json' | 'chat_messages' | undefined;
  readonly language?: string | undefined;
  readonly policy?: string | undefined;
}

/** A finished item: its run (and its handle, unless a shared chain's handle went to a later item), or its failure. */
export type BatchOutcome =
  | { readonly index: number; readonly run: TextRun | StructuredRun; handle?: SessionHandle; readonly error?: undefined }
  | { readonly index: number; readonly run?: undefined; readonly error: unknown };

/** Which input an item sent, matching its input_type. */
export function itemInputType(item: BatchItem): 'text' | 'json' | 'chat_messages' {
  const given: ('text' | 'json' | 'chat_messages')[] = [];
  if (item.text !== undefined) given.push('text');
  if (Object.hasOwn(item, 'input_json')) given.push('json');
  if (item.input_messages !== undefined) given.push('chat_messages');
  if (given.length !== 1) throw new VeilError('VEIL_VALIDATION_FAILED', 'item: send exactly one of text, input_json, input_messages');
  const kind = given[0]!;
  if (item.input_type !== undefined && item.input_type !== kind) {
    throw new VeilError('VEIL_VALIDATION_FAILED', `input_type: '${item.input_type}' does not match the input field sent`);
  }
  return kind;
}

export class BatchUseCase {
  readonly #deps: BatchDeps;

  constructor(deps: BatchDeps) {
    this.#deps = deps;
  }

  /** One item exactly as /v1/transform would run it, without the store checks (the batch does those). */
  #item(call: UseCaseCall, item: BatchItem, command: Parameters<TransformUseCase['runText']>[1], worker: boolean): Promise<TextRun | StructuredRun> {
    const kind = itemInputType(item);
    const options = { shape: 'batch-item' as const, worker };
    if (kind === 'text') return this.#deps.transform.runText(call, command, item.text ?? '', options);
    const document = kind === 'json' ? { kind, value: item.input_json } : { kind, value: item.input_messages };
    return this.#deps.transform.runStructured(call, command, document, options);
  }

  /** Every item in order; `large`: the request is large as a whole, so each item runs on a worker. */
  async transform(
    call: UseCaseCall,
    items: readonly BatchItem[],
    options: { readonly shared: boolean; readonly policy?: string | undefined; readonly context: RequestContext; readonly traceId: string; readonly large: boolean },
  ): Promise<{ readonly outcomes: BatchOutcome[]; readonly sessionId?: string }> {
    const slicer = this.#deps.executor.slicer();
    const outcomes: BatchOutcome[] = [];
    let carried: { sessionState: string; meta: SessionMeta; position: number } | undefined;
    for (const [index, item] of items.entries()) {
      // Between items the event loop serves other requests.
      await slicer.pause();
      try {
        const sessionState = options.shared ? carried?.sessionState : undefined;
        const command = { language: item.language, policy: item.policy ?? options.policy, sessionState, context: options.context, traceId: options.traceId };
        const run = await this.#item(call, item, command, options.large);
        const { meta, sessionState: issued } = runSession(run);
        if (options.shared) {
          carried = { sessionState: issued, meta, position: outcomes.length };
          outcomes.push({ index, run });
        } else {
          outcomes.push({ index, run, handle: await outgoingHandle(this.#deps.state, meta, issued) });
        }
      } catch (error) {
        outcomes.push({ index, error });
      }
    }
    if (carried === undefined) return { outcomes };
    // One continuation record for the whole chain: the final counter (N successful items).
    if (carried.meta.continued) await recordContinuation(this.#deps.state, carried.meta);
    const last = outcomes[carried.position]!;
    if (last.run !== undefined) last.handle = await outgoingHandle(this.#deps.state, carried.meta, carried.sessionState);
    return { outcomes, sessionId: carried.meta.sid };
  }
}
