// What of an OpenAI-style request body goes to the transform, what passes to the upstream as it
// is, and what is refused (docs/api.md, "OpenAI-compatible proxy"). End-user text lives in
// `messages` (chat) and `input` (embeddings): those are tokenized by the chat and JSON modes of
// /v1/transform. The settings an application's developer writes (model, sampling, tool and
// response-format schemas, stop sequences) pass unchanged. Any other field that carries text
// (`user`, `metadata`, `prediction`, `safety_identifier`, `web_search_options`, a field a newer
// API adds) is refused, naming the field: it would reach the upstream untokenized. Fields that
// carry no text (numbers, booleans, null) pass, so new numeric knobs keep working.
//
// Media content parts (images, audio, files) cannot be inspected here, and a photo of a card or
// a recorded phone number would reach the upstream as it is: they are refused unless the
// configuration allows them (proxy.allow_media_parts).
import { VeilError } from '@veil/common';
import { carriesText, isPlainObject } from '../structured/index.js';
import { nameForError } from '../structured/pointer.js';

/** Chat completion fields passed as they are: developer configuration, not end-user text. */
export const CHAT_PASSTHROUGH_FIELDS: readonly string[] = [
  'model',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'n',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'seed',
  'stop',
  'response_format',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'service_tier',
  'reasoning_effort',
  'modalities',
  'audio',
  'store',
  'verbosity',
  'prompt_cache_key',
];

/** Embedding fields passed as they are. */
export const EMBEDDING_PASSTHROUGH_FIELDS: readonly string[] = ['model', 'encoding_format', 'dimensions'];

export interface PreparedChatRequest {
  /** `messages` as sent: validated and tokenized by the chat transform. */
  readonly messages: unknown[];
  /** Every other field, to send to the upstream unchanged. */
  readonly passthrough: Readonly<Record<string, unknown>>;
  readonly stream: boolean;
}

export interface PreparedEmbeddingRequest {
  /** A string or an array of strings: tokenized by the JSON transform. */
  readonly input: string | string[];
  readonly passthrough: Readonly<Record<string, unknown>>;
}

function invalid(field: string, message: string): VeilError {
  return new VeilError('VEIL_VALIDATION_FAILED', `${field}: ${message}`);
}

/** The fields of `body` other than `tokenized`, refusing text-bearing ones off the allowlist. */
function passthroughOf(body: Readonly<Record<string, unknown>>, tokenized: string, allowed: readonly string[]): Record<string, unknown> {
  const passthrough: Record<string, unknown> = {};
  for (const key of Object.keys(body)) {
    if (key === tokenized) continue;
    const value = body[key];
    if (!allowed.includes(key) && carriesText(value, nameForError(key))) {
      throw invalid(nameForError(key), 'is not supported through the proxy: it carries text that would reach the upstream untokenized');
    }
    Object.defineProperty(passthrough, key, { value, enumerable: true, writable: true, configurable: true });
  }
  if (passthrough.model !== undefined && typeof passthrough.model !== 'string') throw invalid('model', 'must be a string');
  return passthrough;
}

/** Content part types the chat transform tokenizes; every other part is media (or unknown). */
const TEXT_PARTS: ReadonlySet<unknown> = new Set(['text', 'refusal']);

/** Refuse the first content part that is not text (images, audio, files, unknown types). */
function refuseMediaParts(messages: readonly unknown[]): void {
  for (const [index, message] of messages.entries()) {
    if (!isPlainObject(message) || !Array.isArray(message.content)) continue;
    for (const [partIndex, part] of (message.content as unknown[]).entries()) {
      if (isPlainObject(part) && !TEXT_PARTS.has(part.type)) {
        throw invalid(`messages/${index}/content/${partIndex}`, 'media parts (images, audio, files) cannot be inspected for personal data and are refused (proxy.allow_media_parts)');
      }
    }
  }
}

/**
 * Split a chat completion request. Throws VEIL_VALIDATION_FAILED naming the field.
 * `allowMedia`: pass image, audio and file parts unchanged (proxy.allow_media_parts).
 */
export function prepareChatRequest(body: unknown, allowMedia = false): PreparedChatRequest {
  if (!isPlainObject(body)) throw invalid('body', 'must be a JSON object');
  const messages = body.messages;
  if (!Array.isArray(messages)) throw invalid('messages', 'must be an array of chat messages');
  if (!allowMedia) refuseMediaParts(messages as unknown[]);
  const passthrough = passthroughOf(body, 'messages', CHAT_PASSTHROUGH_FIELDS);
  const stream = passthrough.stream;
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') throw invalid('stream', 'must be a boolean');
  return { messages: messages as unknown[], passthrough, stream: stream === true };
}

/** Split an embeddings request. Token-id arrays cannot be inspected, so they are refused. */
export function prepareEmbeddingRequest(body: unknown): PreparedEmbeddingRequest {
  if (!isPlainObject(body)) throw invalid('body', 'must be a JSON object');
  const input = body.input;
  const isText = typeof input === 'string' || (Array.isArray(input) && input.length > 0 && input.every((item) => typeof item === 'string'));
  if (!isText) throw invalid('input', 'must be a string or a non-empty array of strings (token arrays cannot be inspected for personal data)');
  return { input, passthrough: passthroughOf(body, 'input', EMBEDDING_PASSTHROUGH_FIELDS) };
}
