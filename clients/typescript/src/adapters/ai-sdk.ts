// A Vercel AI SDK (v5) language-model middleware: wrap any model with
// `wrapLanguageModel({ model, middleware: veilMiddleware(veil) })` and every call tokenizes the
// prompt through Veil before the model sees it and restores the answer after, streamed or not.
//
// - Prompt: system text, text and reasoning parts, tool-call inputs and tool results (text, JSON
//   and text content items) go to /v1/transform as one JSON document (one session, so a value
//   gets one token everywhere). File parts pass unchanged (Veil cannot inspect them here).
// - generateText: text and reasoning are restored under `outputChannel` (user_output by default),
//   tool-call inputs under `toolChannel` (tool_payload), each as a JSON document so values stay
//   correctly escaped.
// - streamText: each text part's deltas are restored as they stream through restoreStream (the
//   ndjson /v1/rehydrate/stream), so a token split across deltas is restored whole and text
//   leaves as soon as Veil releases it; complete tool calls are restored as above. Tool-input
//   deltas and reasoning deltas pass with their tokens (the complete tool call that follows is
//   restored).
//
// Only types come from @ai-sdk/provider (an optional peer): at run time this uses fetch alone.
import type { JSONValue, LanguageModelV2CallOptions, LanguageModelV2Content, LanguageModelV2Middleware, LanguageModelV2Prompt, LanguageModelV2StreamPart } from '@ai-sdk/provider';
import type { CallOptions, RestoreParams, VeilClient } from '../client.js';

export interface VeilMiddlewareOptions {
  /** Policy for new sessions (default: the server's default policy). */
  readonly policy?: string;
  readonly language?: string;
  /** Caps how much is restored (tighten only). */
  readonly restoreMode?: RestoreParams['restore_mode'];
  /** Channel of restored text (default user_output). */
  readonly outputChannel?: string;
  /** Channel of restored tool-call inputs (default tool_payload). */
  readonly toolChannel?: string;
  /** Options of every Veil call (headers, retries, abort signal). */
  readonly callOptions?: CallOptions;
}

type Handle = Pick<RestoreParams, 'session_state' | 'session_id'>;

/** The session of each transformed call, found again by its (transformed) parameters. */
const sessions = new WeakMap<LanguageModelV2CallOptions, Handle>();

type Slot = { readonly kind: 'text'; readonly value: string } | { readonly kind: 'json'; readonly value: JSONValue };

/**
 * Visit every text-bearing slot of a prompt in a fixed order; `replace` gives each slot's new
 * value (same kind). Returns the rebuilt prompt.
 */
function mapPrompt(prompt: LanguageModelV2Prompt, replace: (slot: Slot) => Slot['value']): LanguageModelV2Prompt {
  const text = (value: string): string => replace({ kind: 'text', value }) as string;
  const json = (value: JSONValue): JSONValue => replace({ kind: 'json', value });
  return prompt.map((message) => {
    switch (message.role) {
      case 'system':
        return { ...message, content: text(message.content) };
      case 'user':
        return { ...message, content: message.content.map((part) => (part.type === 'text' ? { ...part, text: text(part.text) } : part)) };
      case 'assistant':
        return {
          ...message,
          content: message.content.map((part) => {
            switch (part.type) {
              case 'text':
              case 'reasoning':
                return { ...part, text: text(part.text) };
              case 'tool-call':
                return { ...part, input: json(part.input as JSONValue) };
              case 'tool-result':
                return { ...part, output: mapOutput(part.output, text, json) };
              case 'file':
                return part;
            }
          }),
        };
      case 'tool':
        return { ...message, content: message.content.map((part) => ({ ...part, output: mapOutput(part.output, text, json) })) };
    }
  });
}

type ToolOutput = Extract<LanguageModelV2Prompt[number], { role: 'tool' }>['content'][number]['output'];

function mapOutput(output: ToolOutput, text: (value: string) => string, json: (value: JSONValue) => JSONValue): ToolOutput {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { ...output, value: text(output.value) };
    case 'json':
    case 'error-json':
      return { ...output, value: json(output.value) };
    case 'content':
      return { ...output, value: output.value.map((item) => (item.type === 'text' ? { ...item, text: text(item.text) } : item)) };
  }
}

/** A queue of deltas read as an async iterable (the body of one restoreStream). */
class DeltaFeed implements AsyncIterable<string> {
  readonly #items: string[] = [];
  #closed = false;
  #wake: (() => void) | undefined;

  push(delta: string): void {
    this.#items.push(delta);
    this.#wake?.();
  }

  close(): void {
    this.#closed = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<string> {
    for (;;) {
      const next = this.#items.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }
}

export function veilMiddleware(veil: VeilClient, options: VeilMiddlewareOptions = {}): LanguageModelV2Middleware {
  const call = options.callOptions ?? {};
  const restoreParams = (handle: Handle, channel: string): RestoreParams => ({
    ...handle,
    output_channel: channel,
    ...(options.restoreMode !== undefined ? { restore_mode: options.restoreMode } : {}),
  });
  const textChannel = options.outputChannel ?? 'user_output';
  const toolChannel = options.toolChannel ?? 'tool_payload';

  /** Restore strings (as one JSON document) under a channel. */
  const restoreAll = async (values: readonly JSONValue[], handle: Handle, channel: string): Promise<JSONValue[]> => {
    if (values.length === 0) return [];
    const restored = await veil.rehydrate({ output_json: values, ...restoreParams(handle, channel) }, call);
    return restored.restored_json as JSONValue[];
  };

  /** A tool call's input (JSON text) restored; text that is not JSON is restored as text. */
  const restoreInput = async (input: string, handle: Handle): Promise<string> => {
    let parsed: JSONValue;
    try {
      parsed = JSON.parse(input) as JSONValue;
    } catch {
      return (await veil.rehydrate({ output: input, ...restoreParams(handle, toolChannel) }, call)).restored_text;
    }
    return JSON.stringify((await restoreAll([parsed], handle, toolChannel))[0]);
  };

  const handleOf = (params: LanguageModelV2CallOptions): Handle => {
    const handle = sessions.get(params);
    if (handle === undefined) throw new Error('veilMiddleware: the call was not tokenized by this middleware (transformParams did not run)');
    return handle;
  };

  return {
    middlewareVersion: 'v2',

    transformParams: async ({ params }) => {
      const slots: JSONValue[] = [];
      mapPrompt(params.prompt, (slot) => {
        slots.push(slot.value);
        return slot.value;
      });
      const transformed = await veil.transform(
        {
          input_json: slots,
          ...(options.policy !== undefined ? { policy: options.policy } : {}),
          ...(options.language !== undefined ? { language: options.language } : {}),
        },
        call,
      );
      const safe = transformed.safe_json as JSONValue[];
      let index = 0;
      const prompt = mapPrompt(params.prompt, () => safe[index++] as Slot['value']);
      const next: LanguageModelV2CallOptions = { ...params, prompt };
      sessions.set(next, transformed.session_id !== undefined ? { session_id: transformed.session_id } : { session_state: transformed.session_state! });
      return next;
    },

    wrapGenerate: async ({ doGenerate, params }) => {
      const handle = handleOf(params);
      const result = await doGenerate();
      const texts = result.content.flatMap((part) => (part.type === 'text' || part.type === 'reasoning' ? [part.text] : []));
      const restored = await restoreAll(texts, handle, textChannel);
      let index = 0;
      const content: LanguageModelV2Content[] = [];
      for (const part of result.content) {
        if (part.type === 'text' || part.type === 'reasoning') content.push({ ...part, text: restored[index++] as string });
        else if (part.type === 'tool-call') content.push({ ...part, input: await restoreInput(part.input, handle) });
        else content.push(part);
      }
      return { ...result, content };
    },

    wrapStream: async ({ doStream, params }) => {
      const handle = handleOf(params);
      const { stream, ...rest } = await doStream();
      const open = new Map<string, { feed: DeltaFeed; done: Promise<void> }>();
      const restored = stream.pipeThrough(
        new TransformStream<LanguageModelV2StreamPart, LanguageModelV2StreamPart>({
          transform: async (part, controller) => {
            switch (part.type) {
              case 'text-start': {
                const feed = new DeltaFeed();
                const done = (async () => {
                  for await (const delta of veil.restoreStream(feed, restoreParams(handle, textChannel), call)) controller.enqueue({ type: 'text-delta', id: part.id, delta });
                })();
                // Surfaced at text-end; never an unhandled rejection meanwhile.
                done.catch(() => undefined);
                open.set(part.id, { feed, done });
                controller.enqueue(part);
                return;
              }
              case 'text-delta': {
                const current = open.get(part.id);
                if (current === undefined) throw new Error('veilMiddleware: text-delta without text-start');
                current.feed.push(part.delta);
                return;
              }
              case 'text-end': {
                const current = open.get(part.id);
                if (current !== undefined) {
                  current.feed.close();
                  await current.done;
                  open.delete(part.id);
                }
                controller.enqueue(part);
                return;
              }
              case 'tool-call':
                controller.enqueue({ ...part, input: await restoreInput(part.input, handle) });
                return;
              default:
                controller.enqueue(part);
            }
          },
          flush: async () => {
            for (const current of open.values()) {
              current.feed.close();
              await current.done;
            }
          },
        }),
      );
      return { ...rest, stream: restored };
    },
  };
}
